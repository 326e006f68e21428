# Assertions about the fabric, as Terraform's: a precondition checked when
# planning, postconditions checked by apply against what the agent reports
# of each connection, and a check block that warns when the fabric as a
# whole is not as it should be.

variable "clients" {
  type    = number
  default = 3

  validation {
    condition     = var.clients > 0 && var.clients <= 8
    error_message = "clients must be from 1 to 8: the listener accepts 8 connections."
  }
}

listener "storage" {
  address = "10.77.0.1"
  port    = 7480

  qp {}

  accept {
    max_connections = 8
    echo            = true
  }
}

endpoint "client" {
  count   = var.clients
  address = listener.storage.address
  port    = listener.storage.port

  qp {}

  probe {
    interval = "500ms"
  }

  lifecycle {
    precondition {
      condition     = listener.storage.port >= 1024
      error_message = "The storage listener must use an unprivileged port, not ${listener.storage.port}."
    }

    postcondition {
      condition     = self.status == "established" && self.local_address == listener.storage.address
      error_message = "${self.id} is ${self.status} from ${self.local_address}; it should be established from ${listener.storage.address}."
    }
  }
}

check "storage_fabric" {
  assert {
    condition     = alltrue([for c in endpoint.client : c.status == "established"])
    error_message = "Not every storage client is established."
  }

  assert {
    condition     = length(distinct([for c in endpoint.client : c.device])) == 1
    error_message = "The storage clients use more than one RDMA device."
  }
}
