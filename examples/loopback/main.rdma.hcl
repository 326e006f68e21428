# A loopback pair on the Soft-RoCE testbed: one listener and four
# endpoints that connect to it over RC.

protection_domain "rxe" {
  device = "rxe0"
}

listener "loop" {
  address = "10.77.0.1"
  port    = 7471
  backlog = 16
  pd      = protection_domain.rxe.id

  qp {
    max_send_wr = 32
    max_recv_wr = 32
  }

  accept {
    max_connections = 8
    echo            = true
  }
}

endpoint "client" {
  count = 4

  address = listener.loop.address
  port    = listener.loop.port
  pd      = protection_domain.rxe.id

  qp {
    max_send_wr = 32
    max_recv_wr = 32
  }

  connect {
    # Text, sent as its UTF-8 bytes. A binary header (bytes that are not
    # UTF-8) goes in private_data_base64 instead, such as "gAH+/w==" for
    # 80 01 fe ff, or filebase64("${path.module}/header.bin").
    private_data = "client-${count.index}"
    timeout      = "500ms"
  }

  reconnect {
    min_backoff = "100ms"
    max_backoff = "5s"
  }

  probe {
    interval = "1s"
    size     = 64
  }
}
