# One configuration for a whole fabric: two storage servers, each with a
# listener, and a compute host whose endpoints reach both. Each host runs
# `rdmaform agent -listen=...:7470` with mutual TLS; the CLI reaches them
# with the files under pki/ (see pki.sh).

locals {
  storage = { s1 = "10.77.1.1", s2 = "10.77.1.2" }
}

agent "storage" {
  for_each = local.storage
  address  = "${each.value}:7470"
  tls {
    ca_file   = "pki/ca.pem"
    cert_file = "pki/operator.pem"
    key_file  = "pki/operator-key.pem"
  }
}

agent "compute" {
  address = "10.77.1.3:7470"
  tls {
    ca_file   = "pki/ca.pem"
    cert_file = "pki/operator.pem"
    key_file  = "pki/operator-key.pem"
  }
}

listener "blocks" {
  for_each = local.storage
  agent    = agent.storage[each.key]
  address  = each.value
  port     = 7471
}

endpoint "blocks" {
  for_each = listener.blocks
  agent    = agent.compute
  address  = each.value.address
  port     = each.value.port
}
