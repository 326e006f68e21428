# A fan-out: one listener per storage service, and one endpoint per
# service reaching it, both from the same map with for_each.

locals {
  services = {
    metadata = 7471
    blocks   = 7472
    journal  = 7473
  }
}

listener "svc" {
  for_each = local.services

  address = "10.77.0.1"
  port    = each.value

  qp {
    type        = "rc"
    max_send_wr = 64
  }

  accept {
    private_data = "svc=${each.key}"
  }
}

endpoint "svc" {
  for_each = listener.svc

  address = each.value.address
  port    = each.value.port

  qp {}

  connect {
    retry_count     = 6
    rnr_retry_count = 7
  }

  # A service that does not answer fails the create after 10 s rather
  # than the default 30 s.
  timeouts {
    create = "10s"
  }

  lifecycle {
    create_before_destroy = true
  }
}

output "ports" {
  value = { for name, l in listener.svc : name => l.port }
}
