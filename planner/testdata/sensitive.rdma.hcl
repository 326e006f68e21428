variable "secret" {
  type      = string
  default   = "tok-42"
  sensitive = true
}
locals {
  pd = "peer=${var.secret}"
}
listener "l" {
  address = "10.77.0.1"
  port    = 7801
  accept {
    private_data = local.pd
  }
}
endpoint "e" {
  address = listener.l.address
  port    = listener.l.port
  connect {
    private_data = sensitive("x")
  }
}
