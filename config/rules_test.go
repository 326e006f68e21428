package config

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"
)

// ruleCase is one validation rule's test: a configuration and the
// diagnostic it must produce: summary, a detail substring, and where the
// subject starts.
type ruleCase struct {
	name    string
	src     string
	summary string
	detail  string
	line    int
	col     int
}

const okListener = `
listener "l" {
  address = "10.77.0.1"
  port    = 7471
}
`

var ruleCases = []ruleCase{
	{"unknown block", `listner "x" {}`,
		"Unsupported block type", `Blocks of type "listner" are not expected here. Did you mean "listener"?`, 1, 1},
	{"unknown attribute", `listener "x" {
  address = "10.77.0.1"
  port    = 7471
  backlgo = 3
}`, "Unsupported argument", `An argument named "backlgo" is not expected here. Did you mean "backlog"?`, 4, 3},
	{"unknown nested attribute", `endpoint "x" {
  address = "10.77.0.1"
  port    = 7471
  connect { retry_cont = 3 }
}`, "Unsupported argument", `Did you mean "retry_count"?`, 4, 13},
	{"wrong type", `listener "x" {
  address = "10.77.0.1"
  port    = "seventy"
}`, "Incorrect attribute value type", `Inappropriate value for attribute "port": a number is required.`, 3, 13},
	{"missing required", `listener "x" {
  port = 7471
}`, "Missing required argument", `The argument "address" is required`, 1, 14},
	{"port too large", `listener "x" {
  address = "10.77.0.1"
  port    = 70000
}`, "Invalid port", "port must be from 1 to 65535; got 70000.", 3, 13},
	{"port zero", `endpoint "x" {
  address = "10.77.0.1"
  port    = 0
}`, "Invalid port", "port must be from 1 to 65535; got 0.", 3, 13},
	{"port not whole", `endpoint "x" {
  address = "10.77.0.1"
  port    = 74.5
}`, "Invalid port", "port must be a whole number; got 74.5.", 3, 13},
	{"zero cap", `endpoint "x" {
  address = "10.77.0.1"
  port    = 7471
  qp {
    max_send_wr = 0
  }
}`, "Invalid QP capacity", "max_send_wr must be from 1 to 1048576", 5, 19},
	{"absurd cap", `endpoint "x" {
  address = "10.77.0.1"
  port    = 7471
  qp {
    max_recv_sge = 1000
  }
}`, "Invalid QP capacity", "max_recv_sge must be from 1 to 64 (no device takes more scatter/gather entries; -device-check compares with the device's max_sge); got 1000.", 5, 20},
	{"inline data too large", `endpoint "x" {
  address = "10.77.0.1"
  port    = 7471
  qp {
    max_inline_data = 65536
  }
}`, "Inline data too large", "max_inline_data must be from 0 to 4096 bytes, the most a send work request can carry inline", 5, 23},
	{"zero backlog", `listener "x" {
  address = "10.77.0.1"
  port    = 7471
  backlog = 0
}`, "Invalid backlog", "backlog must be from 1 to 65535", 4, 13},
	{"retry count", `endpoint "x" {
  address = "10.77.0.1"
  port    = 7471
  connect {
    retry_count = 8
  }
}`, "Invalid retry count", "retry_count must be from 0 to 7 (a 3-bit field of the connection request); got 8.", 5, 19},
	{"rnr retry count", `endpoint "x" {
  address = "10.77.0.1"
  port    = 7471
  connect {
    rnr_retry_count = -1
  }
}`, "Invalid retry count", "rnr_retry_count must be from 0 to 7", 5, 23},
	{"responder resources", `endpoint "x" {
  address = "10.77.0.1"
  port    = 7471
  connect {
    responder_resources = 256
  }
}`, "Invalid connect parameter", "responder_resources must be from 0 to 255 (an 8-bit field of rdma_conn_param); got 256.", 5, 27},
	{"connect private data tcp", `endpoint "x" {
  address = "10.77.0.1"
  port    = 7471
  connect {
    private_data = "` + strings.Repeat("x", 57) + `"
  }
}`, "Private data too long", "private_data is 57 bytes; librdmacm carries at most 56 bytes of private data in a connection request on the tcp port space.", 5, 20},
	{"connect private data udp", `endpoint "x" {
  address    = "10.77.0.1"
  port       = 7471
  port_space = "udp"
  connect {
    private_data = "` + strings.Repeat("x", 181) + `"
  }
}`, "Private data too long", "at most 180 bytes of private data in a datagram (SIDR) request on the udp port space.", 6, 20},
	{"connect private data ib without a qp block", `endpoint "x" {
  address    = "10.77.0.1"
  port       = 7471
  port_space = "ib"
  connect {
    private_data = "` + strings.Repeat("x", 57) + `"
  }
}`, "Private data too long", "at most 56 bytes of private data in a connection request on the ib port space.", 6, 20},
	{"pd from a protection domain's device", `protection_domain "p" {
  device = "rxe0"
}
listener "x" {
  address = "10.77.0.1"
  port    = 7471
  pd      = protection_domain.p.device
}`, "Not a protection domain's id", "pd takes a protection domain's id, protection_domain.p.id, not its device.", 7, 13},
	{"multicast endpoint address", `endpoint "x" {
  address = "224.0.0.1"
  port    = 7471
}`, "Not a host's address", `address = "224.0.0.1" is a multicast or broadcast address`, 2, 13},
	{"connect timeout below a millisecond", `endpoint "x" {
  address = "10.77.0.1"
  port    = 7471
  connect {
    timeout = "500us"
  }
}`, "Invalid timeout", "timeout must be from 1ms to 596h31m23.647s (rdma_resolve_addr takes milliseconds in a C int); got 500µs.", 5, 15},
	{"timeouts create not a duration", `endpoint "x" {
  address = "10.77.0.1"
  port    = 7471
  timeouts {
    create = "soon"
  }
}`, "Invalid duration", `"soon"`, 5, 14},
	{"timeouts create empty", `endpoint "x" {
  address = "10.77.0.1"
  port    = 7471
  timeouts {
    create = ""
  }
}`, "Invalid duration", `""`, 5, 14},
	{"timeouts delete", `endpoint "x" {
  address = "10.77.0.1"
  port    = 7471
  timeouts {
    create = "5s"
    delete = "5s"
  }
}`, "Unsupported argument", `An argument named "delete" is not expected here.`, 6, 5},
	{"accept private data tcp", `listener "x" {
  address = "10.77.0.1"
  port    = 7471
  accept {
    private_data = "` + strings.Repeat("x", 197) + `"
  }
}`, "Private data too long", "private_data is 197 bytes; librdmacm carries at most 196 bytes of private data in a connection reply on the tcp port space.", 5, 20},
	{"accept private data udp", `listener "x" {
  address    = "10.77.0.1"
  port       = 7471
  port_space = "udp"
  accept {
    private_data = "` + strings.Repeat("x", 137) + `"
  }
}`, "Private data too long", "at most 136 bytes of private data in a datagram (SIDR) reply on the udp port space.", 6, 20},
	{"reject private data tcp", `listener "x" {
  address = "10.77.0.1"
  port    = 7471
  accept {
    reject_private_data = "` + strings.Repeat("x", 149) + `"
  }
}`, "Private data too long", "reject_private_data is 149 bytes; librdmacm carries at most 148 bytes of private data in a connection rejection on the tcp port space.", 5, 27},
	{"connect private data base64 tcp", `endpoint "x" {
  address = "10.77.0.1"
  port    = 7471
  connect {
    private_data_base64 = "` + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0xff}, 57)) + `"
  }
}`, "Private data too long", "private_data_base64 decodes to 57 bytes; librdmacm carries at most 56 bytes of private data in a connection request on the tcp port space.", 5, 27},
	{"connect private data base64 udp", `endpoint "x" {
  address    = "10.77.0.1"
  port       = 7471
  port_space = "udp"
  connect {
    private_data_base64 = "` + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0x80}, 181)) + `"
  }
}`, "Private data too long", "private_data_base64 decodes to 181 bytes; librdmacm carries at most 180 bytes of private data in a datagram (SIDR) request on the udp port space.", 6, 27},
	{"accept private data base64 tcp", `listener "x" {
  address = "10.77.0.1"
  port    = 7471
  accept {
    private_data_base64 = "` + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0xfe}, 197)) + `"
  }
}`, "Private data too long", "private_data_base64 decodes to 197 bytes; librdmacm carries at most 196 bytes of private data in a connection reply on the tcp port space.", 5, 27},
	{"reject private data base64 tcp", `listener "x" {
  address = "10.77.0.1"
  port    = 7471
  accept {
    reject_private_data_base64 = "` + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0xfe}, 149)) + `"
  }
}`, "Private data too long", "reject_private_data_base64 decodes to 149 bytes; librdmacm carries at most 148 bytes of private data in a connection rejection on the tcp port space.", 5, 34},
	{"connect private data base64 invalid", `endpoint "x" {
  address = "10.77.0.1"
  port    = 7471
  connect {
    private_data_base64 = "AAEC/w"
  }
}`, "Invalid base64", "private_data_base64 is not valid base64 (the standard alphabet with = padding, as base64encode and the base64 command write it): illegal base64 data at input byte 4.", 5, 27},
	{"reject private data base64 invalid", `listener "x" {
  address = "10.77.0.1"
  port    = 7471
  accept {
    reject_private_data_base64 = "not base64!"
  }
}`, "Invalid base64", "reject_private_data_base64 is not valid base64", 5, 34},
	{"connect private data in both forms", `endpoint "x" {
  address = "10.77.0.1"
  port    = 7471
  connect {
    private_data = "hdr"
    private_data_base64 = "AAEC/w=="
  }
}`, "Conflicting configuration arguments", "private_data_base64 and private_data (at main.rdma.hcl:5:20) are both set; they are two forms of the same private data, so set one: private_data for text, private_data_base64 for bytes that are not UTF-8.", 6, 27},
	{"accept private data in both forms", `listener "x" {
  address = "10.77.0.1"
  port    = 7471
  accept {
    private_data_base64 = "AAEC/w=="
    private_data = "hdr"
  }
}`, "Conflicting configuration arguments", "private_data_base64 and private_data (at main.rdma.hcl:6:20) are both set", 5, 27},
	{"reject private data in both forms", `listener "x" {
  address = "10.77.0.1"
  port    = 7471
  accept {
    reject_private_data = "full"
    reject_private_data_base64 = "AAEC/w=="
  }
}`, "Conflicting configuration arguments", "reject_private_data_base64 and reject_private_data (at main.rdma.hcl:5:27) are both set", 6, 34},
	{"timeouts create under 100ms", `endpoint "x" {
  address = "10.77.0.1"
  port    = 7471
  timeouts {
    create = "1ms"
  }
}`, "Create timeout shorter than a connect", `timeouts.create = "1ms" is under 100ms: it bounds the wait for ESTABLISHED after rdma_connect`, 5, 14},
	{"qp type tcp", `endpoint "x" {
  address = "10.77.0.1"
  port    = 7471
  qp {
    type = "ud"
  }
}`, "QP type does not fit the port space", `A "ud" QP cannot be used on the "tcp" port space, which carries RC QPs only.`, 5, 12},
	{"qp type udp", `listener "x" {
  address    = "10.77.0.1"
  port       = 7471
  port_space = "udp"
  qp {
    type = "rc"
  }
}`, "QP type does not fit the port space", `A "rc" QP cannot be used on the "udp" port space, which carries UD QPs only.`, 6, 12},
	{"bad qp type", `listener "x" {
  address = "10.77.0.1"
  port    = 7471
  qp {
    type = "rd"
  }
}`, "Invalid QP type", `type must be "rc", "uc" or "ud"; got "rd".`, 5, 12},
	{"bad port space", `listener "x" {
  address    = "10.77.0.1"
  port       = 7471
  port_space = "tpc"
}`, "Invalid port space", `port_space must be "tcp", "udp", "ib" or "ipoib"; got "tpc". Did you mean "tcp"?`, 4, 16},
	{"duplicate name", okListener + `
listener "l" {
  address = "10.77.0.2"
  port    = 7471
}`, "Duplicate listener \"l\"", "A listener \"l\" was already declared at main.rdma.hcl:2,1-13.", 7, 1},
	{"duplicate listener address", okListener + `
listener "m" {
  address = "10.77.0.1"
  port    = 7471
}`, "Duplicate listener address", "listener.m and listener.l (declared at main.rdma.hcl:2,1-13) both listen on 10.77.0.1 port 7471 (tcp)", 9, 13},
	{"undeclared object", `endpoint "x" {
  address = listener.storage.address
  port    = 7471
}`, "Reference to undeclared listener", `A listener named "storage" is not declared in this configuration.`, 2, 13},
	{"undeclared object suggestion", okListener + `
endpoint "x" {
  address = listener.k.address
  port    = 7471
}`, "Reference to undeclared listener", `A listener named "k" is not declared in this configuration. Did you mean "l"?`, 8, 13},
	{"undeclared attribute", okListener + `
endpoint "x" {
  address = listener.l.adress
  port    = 7471
}`, "Unsupported attribute", `A listener has no attribute named "adress". Did you mean "address"?`, 8, 23},
	{"missing instance key", `listener "l" {
  count   = 2
  address = "10.77.0.1"
  port    = 7471 + count.index
}
endpoint "x" {
  address = "10.77.0.1"
  port    = listener.l.port
}`, "Missing instance key", "listener.l has count, so its attributes belong to its instances: write listener.l[0].port.", 8, 13},
	{"unexpected index", okListener + `
endpoint "x" {
  address = "10.77.0.1"
  port    = listener.l[0].port
}`, "Unexpected index", "listener.l has neither count nor for_each, so it is not indexed.", 9, 23},
	{"undeclared variable", `endpoint "x" {
  address = var.addr
  port    = 7471
}`, "Reference to undeclared input variable", `An input variable named "addr" is not declared.`, 2, 13},
	{"unknown root", `endpoint "x" {
  address = lisener.l.address
  port    = 7471
}`, "Reference to unknown name", `There is nothing named "lisener"`, 2, 13},
	{"count and for_each", `endpoint "x" {
  count    = 2
  for_each = toset(["a"])
  address  = "10.77.0.1"
  port     = 7471
}`, "Invalid combination of count and for_each", "The count and for_each meta-arguments are mutually exclusive", 3, 3},
	{"cycle", `endpoint "a" {
  address = endpoint.b.address
  port    = 7471
}
endpoint "b" {
  address = endpoint.a.address
  port    = 7471
}`, "Cycle: endpoint.a, endpoint.b", "endpoint.a (main.rdma.hcl:1,1-13)\n  endpoint.b (main.rdma.hcl:5,1-13)", 1, 1},
	{"self reference", `endpoint "a" {
  address = "10.77.0.1"
  port    = endpoint.a.port
}`, "Self-referential block", "Configuration for endpoint.a may not refer to itself.", 3, 13},
	{"probe toward a listener that does not echo", `listener "l" {
  address = "10.77.0.1"
  port    = 7471
  qp {}
}
endpoint "a" {
  address = "10.77.0.1"
  port    = listener.l.port
  qp {}
  probe {}
}`, "Probe toward a listener that does not echo", "endpoint.a probes listener.l, which does not echo", 10, 3},
	{"wildcard and specific listeners on one port", `listener "any" {
  address = "0.0.0.0"
  port    = 7500
}
listener "one" {
  address = "10.77.0.1"
  port    = 7500
}
listener "v6" {
  address = "fd77::1"
  port    = 7501
}`, "Listeners on the same port", "listener.one and listener.any (declared at main.rdma.hcl:1,1-15) both listen on port 7500 (tcp), and listener.any listens on every address (0.0.0.0)", 7, 13},
	// As the kernel's RDMA CM: an IPv4 wildcard takes the port from IPv6
	// addresses too (an IPv6 id is not IPv6-only), and :: from IPv4 ones.
	{"IPv4 wildcard and IPv6 listener on one port", `listener "any" {
  address = "0.0.0.0"
  port    = 7500
}
listener "v6" {
  address = "fd77::1"
  port    = 7500
}`, "Listeners on the same port", "listener.v6 and listener.any (declared at main.rdma.hcl:1,1-15) both listen on port 7500 (tcp), and listener.any listens on every address (0.0.0.0): the second cannot bind the port (rdma_bind_addr fails with EADDRNOTAVAIL).", 7, 13},
	{"typo in a nested block's attribute", `listener "l" {
  address = "10.77.0.1"
  port    = 7471
}
endpoint "a" {
  address = "10.77.0.1"
  port    = 7471
  connect {
    private_data = listener.l.accept.privat_data
  }
}`, "Unsupported attribute", `The accept block of a listener has no attribute named "privat_data". Did you mean "private_data"?`, 9, 37},
	{"endpoint in another port space than its listener", `listener "l" {
  address    = "10.77.0.1"
  port       = 7471
  port_space = "ib"
}
endpoint "a" {
  address = "10.77.0.1"
  port    = listener.l.port
}`, "Port space mismatch", "endpoint.a connects to port 7471 in port space tcp, but listener.l listens there in port space ib", 8, 13},
	{"probe interval too short", `endpoint "a" {
  address = "10.77.0.1"
  port    = 7471
  qp {}
  probe {
    interval = "1ns"
  }
}`, "Probe interval too short", "probe.interval must be at least 1ms (got 1ns)", 6, 16},
	{"whole number out of range", `listener "a" {
  address = "10.77.0.1"
  port    = 1e400
}`, "Invalid port", "port must be from 1 to 65535; got 1e+400.", 3, 13},
	{"for_each key written as an attribute", `listener "m" {
  for_each = toset(["x"])
  address  = "10.77.0.1"
  port     = 7471
}
endpoint "a" {
  address = "10.77.0.1"
  port    = listener.m.x.port
}`, "Missing instance key", `write listener.m["x"].port.`, 8, 13},
	{"count index without count", `endpoint "a" {
  address = "10.77.0.1"
  port    = 7000 + count.index
}`, `Reference to "count" in a block without count`, "count.* is available only in", 3, 20},
	{"negative count", `endpoint "a" {
  count   = -1
  address = "10.77.0.1"
  port    = 7471
}`, "Invalid count argument", "count must be a whole number from 0 to 100000; got -1.", 2, 13},
	{"for_each list", `endpoint "a" {
  for_each = ["x"]
  address  = "10.77.0.1"
  port     = 7471
}`, "Invalid for_each argument", "Use toset() for a list of strings.", 2, 14},
	{"bad duration", `endpoint "a" {
  address = "10.77.0.1"
  port    = 7471
  connect {
    timeout = "2 seconds"
  }
}`, "Invalid duration", `"2 seconds" is not a duration`, 5, 15},
	{"backoff order", `endpoint "a" {
  address = "10.77.0.1"
  port    = 7471
  reconnect {
    min_backoff = "10s"
    max_backoff = "1s"
  }
}`, "Invalid backoff", "max_backoff (1s) must not be shorter than min_backoff (10s).", 6, 19},
	{"probe on a UC QP", `endpoint "a" {
  address    = "10.77.0.1"
  port       = 7471
  port_space = "ib"
  qp { type = "uc" }
  probe {}
}`, "Probe needs an RC or UD queue pair", `a qp block of type "rc" or "ud".`, 6, 3},
	{"max_connections on a UD listener", `listener "a" {
  address    = "10.77.0.1"
  port       = 7471
  port_space = "udp"
  accept {
    max_connections = 4
  }
}`, "No connections to limit", "a datagram (UD) listener on the udp port space answers SIDR requests", 6, 23},
	{"max_connections on a UD listener of the IB port space", `listener "a" {
  address    = "10.77.0.1"
  port       = 7471
  port_space = "ib"
  qp {
    type = "ud"
  }
  accept {
    max_connections = 4
  }
}`, "No connections to limit", "on the ib port space", 9, 23},
	{"bad address", `listener "a" {
  address = "10.77.0.1:7471"
  port    = 7471
}`, "Invalid address", `address must be an IPv4 or IPv6 address or a host name; got "10.77.0.1:7471".`, 2, 13},
	{"mistyped IPv4 address", `endpoint "a" {
  address = "10.0.0.300"
  port    = 7471
}`, "Invalid address", `address must be an IPv4 or IPv6 address or a host name; got "10.0.0.300".`, 2, 13},
	{"link-local address without a zone", `listener "a" {
  address = "fe80::a082:88ff:fe9d:901"
  port    = 7471
}`, "Link-local address without a zone", `name the interface it is on, as in "fe80::a082:88ff:fe9d:901%IFACE"`, 2, 13},
	{"link-local source address without a zone", `endpoint "a" {
  address        = "fe80::1%rxedummy0"
  source_address = "fe80::2"
  port           = 7471
}`, "Link-local address without a zone", `source_address = "fe80::2" is an IPv6 link-local address`, 3, 20},
	{"second lifecycle block", `endpoint "a" {
  address = "10.77.0.1"
  port    = 7471
  lifecycle {
    prevent_destroy = true
  }
  lifecycle {
    prevent_destroy = false
  }
}`, "Duplicate lifecycle block", "A lifecycle block was already declared at main.rdma.hcl:4", 7, 3},
	{"IPv4-mapped address", `endpoint "a" {
  address = "::ffff:10.77.0.1"
  port    = 7471
}`, "IPv4-mapped address", `address = "::ffff:10.77.0.1" is an IPv4-mapped IPv6 address, which the kernel's RDMA CM does not route (rdma_resolve_addr fails with ENETUNREACH, rdma_bind_addr with EADDRNOTAVAIL): write "10.77.0.1".`, 2, 13},
	{"empty address", `endpoint "a" {
  address = ""
  port    = 7471
}`, "Invalid address", `address must not be empty`, 2, 13},
	{"empty source address", `endpoint "a" {
  address        = "10.77.0.1"
  source_address = ""
  port           = 7471
}`, "Invalid address", `source_address must not be empty`, 3, 20},
	{"computed attribute set", `listener "a" {
  address = "10.77.0.1"
  port    = 7471
  id      = "x"
}`, "Cannot set a computed attribute", `"id" is known only after apply`, 4, 3},
	{"duplicate nested block", `listener "a" {
  address = "10.77.0.1"
  port    = 7471
  qp {}
  qp {}
}`, "Duplicate qp block", "A qp block was already declared at main.rdma.hcl:4,3-5.", 5, 3},
	{"variable validation", `variable "port" {
  type    = number
  default = 80
  validation {
    condition     = var.port > 1024
    error_message = "Use an unprivileged port."
  }
}`, "Invalid value for variable", "Use an unprivileged port.", 5, 21},
	{"variable default type", `variable "port" {
  type    = number
  default = "x"
}`, "Invalid default value for variable", "not compatible with the variable's type constraint", 3, 13},
	{"invalid depends_on", okListener + `
endpoint "a" {
  address    = "10.77.0.1"
  port       = 7471
  depends_on = [listener.l.port]
}`, "Invalid depends_on reference", "depends_on lists whole blocks", 10, 17},
	{"ignore_changes unknown attribute", `endpoint "a" {
  address = "10.77.0.1"
  port    = 7471
  lifecycle {
    ignore_changes = [qp.max_sned_wr]
  }
}`, "Unsupported attribute", `There is no attribute named "max_sned_wr" here. Did you mean "max_send_wr"?`, 5, 25},
	{"ignore_changes index on an attribute", `endpoint "a" {
  address = "10.77.0.1"
  port    = 7471
  lifecycle {
    ignore_changes = [port[0]]
  }
}`, "Invalid ignore_changes entry", `such as qp.max_send_wr`, 5, 27},
	{"unknown function", `endpoint "a" {
  address = cidrhots("10.77.0.0/24", 1)
  port    = 7471
}`, "Call to unknown function", `There is no function named "cidrhots". Did you mean "cidrhost"?`, 2, 13},
	{"invalid name", `listener "1x" {
  address = "10.77.0.1"
  port    = 7471
}`, "Invalid name", `"1x" is not a valid name`, 1, 10},
	{"undeclared local", `endpoint "a" {
  address = local.addr
  port    = 7471
}`, "Reference to undeclared local value", `A local value named "addr" is not declared.`, 2, 13},
	{"max connections negative", `listener "a" {
  address = "10.77.0.1"
  port    = 7471
  accept {
    max_connections = -1
  }
}`, "Invalid accept parameter", "max_connections must be from 0 to 1048576 (0 for no limit); got -1.", 5, 23},
	{"empty device", `protection_domain "pd" {
  device = ""
}`, "Invalid device", "device must name an RDMA device", 2, 12},
	{"pd id needs apply but device required", `protection_domain "pd" {}`,
		"Missing required argument", `The argument "device" is required`, 1, 24},
	{"same IPv6 listener address written differently", `listener "a" {
  address = "fd77::1"
  port    = 7471
}
listener "b" {
  address = "FD77:0:0::1"
  port    = 7471
}`, "Duplicate listener address", "listener.b and listener.a (declared at main.rdma.hcl:1,1-13) both listen on FD77:0:0::1 port 7471", 7, 13},
	{"bare endpoint reference", `locals {
  all = endpoint
}`, "Invalid reference", "A reference to an endpoint needs its name, such as endpoint.name.", 2, 9},
	{"bare listener reference", `locals {
  all = listener
}`, "Invalid reference", "A reference to a listener needs its name, such as listener.name.", 2, 9},
	{"source address of the other family", `endpoint "e" {
  address        = "10.77.0.1"
  source_address = "fd77::1"
  port           = 7471
}`, "Address family mismatch", "source_address fd77::1 and address 10.77.0.1 are not of the same family", 3, 20},
	{"source address of the other family (IPv6 to IPv4)", `endpoint "e" {
  address        = "fd77::1"
  source_address = "10.77.0.1"
  port           = 7471
}`, "Address family mismatch", "source_address 10.77.0.1 and address fd77::1", 3, 20},
	{"for_each key with an escape sequence", `endpoint "e" {
  for_each = toset(["a\u001b]0;owned\u0007"])
  address  = "10.77.0.1"
  port     = 7471
}`, "Invalid instance name", `The for_each key "a\x1b]0;owned\a" holds the character U+001B, which is not printable`, 2, 14},
	{"for_each key starting with a slash", `endpoint "e" {
  for_each = toset(["/etc"])
  address  = "10.77.0.1"
  port     = 7471
}`, "Invalid instance name", `The for_each key "/etc" starts with "/"`, 2, 14},
	{"for_each key with dot-dot", `endpoint "e" {
  for_each = { "a/../b" = 1 }
  address  = "10.77.0.1"
  port     = 7471
}`, "Invalid instance name", `The for_each key "a/../b" holds ".." between slashes`, 2, 14},
	{"for_each key too long", `endpoint "e" {
  for_each = toset([join("", [for i in range(300) : "k"])])
  address  = "10.77.0.1"
  port     = 7471
}`, "Invalid instance name", `is 314 bytes long; an address may be at most 256 bytes: use a shorter for_each key`, 2, 14},
	{"name too long", `endpoint "` + strings.Repeat("e", 250) + `" {
  address  = "10.77.0.1"
  port     = 7471
}`, "Invalid instance name", `is 259 bytes long; an address may be at most 256 bytes: use a shorter name`, 1, 1},
}

func TestRules(t *testing.T) {
	for _, tc := range ruleCases {
		t.Run(tc.name, func(t *testing.T) {
			l := NewLoader()
			_, diags := l.LoadSources(map[string][]byte{"main.rdma.hcl": []byte(tc.src)}, VarInputs{})
			var found bool
			for _, d := range diags {
				if d.Summary != tc.summary || !strings.Contains(d.Detail, tc.detail) {
					continue
				}
				found = true
				if d.Subject == nil {
					t.Errorf("diagnostic has no subject")
				} else if d.Subject.Filename != "main.rdma.hcl" || d.Subject.Start.Line != tc.line || d.Subject.Start.Column != tc.col {
					t.Errorf("subject = %s, want main.rdma.hcl:%d,%d", d.Subject, tc.line, tc.col)
				}
			}
			if !found {
				var b strings.Builder
				_ = l.WriteDiagnostics(&b, diags, false, 0)
				t.Fatalf("no diagnostic %q containing %q; got:\n%s", tc.summary, tc.detail, b.String())
			}
			if len(diags) != 1 {
				var b strings.Builder
				_ = l.WriteDiagnostics(&b, diags, false, 0)
				t.Errorf("%d diagnostics, want exactly 1 (no cascades):\n%s", len(diags), b.String())
			}
		})
	}
}

// TestManyProblemsAtOnce checks that diagnostics accumulate across blocks
// and files instead of stopping at the first.
func TestManyProblemsAtOnce(t *testing.T) {
	_, diags := NewLoader().LoadSources(map[string][]byte{
		"a.rdma.hcl": []byte(`listener "a" {
  address = "10.77.0.1"
  port    = 0
}`),
		"b.rdma.hcl": []byte(`endpoint "b" {
  address = "10.77.0.1"
  port    = 7471
  connect { retry_count = 9 }
  qp { type = "ud" }
}`),
	}, VarInputs{})
	want := []string{"Invalid port", "Invalid retry count", "QP type does not fit the port space"}
	if len(diags) != len(want) {
		t.Fatalf("got %d diagnostics, want %d: %v", len(diags), len(want), diags)
	}
	for i, d := range diags {
		if d.Summary != want[i] {
			t.Errorf("diagnostic %d = %q, want %q", i, d.Summary, want[i])
		}
	}
}

// An endpoint toward a peer host on the port a wildcard listener of this
// configuration uses is not taken for one toward that listener.
func TestProbeTowardAPeerOnAWildcardListenersPort(t *testing.T) {
	_, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(`
listener "srv" {
  address = "0.0.0.0"
  port    = 7471
}
endpoint "to_peer" {
  address = "192.0.2.10"
  port    = 7471
  qp {}
  probe {}
}
`)}, VarInputs{})
	if diags.HasErrors() {
		t.Errorf("%v", diags)
	}
}

// A UD pair probes too: the endpoint toward the listener's own QP, which
// echoes (the udp port space's QPs are ud).
func TestUDProbeAndEcho(t *testing.T) {
	_, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(`
listener "ud" {
  address    = "10.77.0.1"
  port       = 7474
  port_space = "udp"
  qp {}
  accept { echo = true }
}
endpoint "ud" {
  address    = listener.ud.address
  port       = listener.ud.port
  port_space = "udp"
  qp {}
  probe {}
}
`)}, VarInputs{})
	if diags.HasErrors() {
		t.Errorf("%v", diags)
	}
}
