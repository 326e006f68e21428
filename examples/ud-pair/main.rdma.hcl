# A UD pair on the udp port space: the endpoint's connect is a SIDR
# lookup of the listener's QP, which may carry up to 180 bytes of
# private data. Its reply gives the endpoint the listener's QP and Q_Key,
# which its probes go to and which echoes them.

listener "ud" {
  address    = "10.77.0.1"
  port       = 7474
  port_space = "udp"

  qp {
    type        = "ud"
    max_send_wr = 128
    max_recv_wr = 128
  }

  accept {
    private_data = "qkey-lookup-ok"
    echo         = true
  }
}

endpoint "ud" {
  address    = listener.ud.address
  port       = listener.ud.port
  port_space = listener.ud.port_space

  qp {
    max_send_wr = 128
    max_recv_wr = 128
  }

  connect {
    private_data = "hello from ${listener.ud.address}"
  }

  probe {
    interval = "1s"
    size     = 64
  }
}
