# Variables and outputs: the address, base port and client count come from
# variables (set with -var, -var-file, RDMAFORM_VAR_name or a
# rdmaform.rdmavars file), validated before anything is planned.

variable "address" {
  type        = string
  default     = "10.77.0.1"
  description = "Address of the Soft-RoCE testbed"
}

variable "base_port" {
  type    = number
  default = 7480

  validation {
    condition     = var.base_port >= 1024 && var.base_port <= 65000
    error_message = "base_port must be an unprivileged port below 65000."
  }
}

variable "clients" {
  type    = number
  default = 2
}

variable "token" {
  type      = string
  default   = "s3cret"
  sensitive = true
}

locals {
  subnet = "10.77.0.0/24"
}

listener "api" {
  address = var.address
  port    = var.base_port

  qp {}
}

endpoint "api" {
  count = var.clients

  address        = listener.api.address
  port           = listener.api.port
  source_address = cidrhost(local.subnet, 1)

  qp {}

  connect {
    private_data = format("%s#%d", var.token, count.index)
  }
}

output "listener_id" {
  description = "Known after apply"
  value       = listener.api.id
}

output "endpoints" {
  value = [for e in endpoint.api : "${e.address}:${e.port}"]
}

output "token" {
  value     = var.token
  sensitive = true
}
