package config

import (
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
)

// attrPath is the path of attribute names from an object's root.
func attrPath(names ...string) cty.Path {
	var p cty.Path
	for _, n := range names {
		p = p.GetAttr(n)
	}
	return p
}

// The options blocks' rules run with the others (TestRules).
func init() {
	ruleCases = append(ruleCases,
		ruleCase{"type of service over a byte", `endpoint "x" {
  address = "10.77.0.1"
  port    = 7471
  options {
    type_of_service = 256
  }
}`, "Invalid option", "type_of_service must be from 0 to 255 (the IP TOS byte: RoCE's traffic class); got 256.", 5, 23},
		ruleCase{"ack timeout over 5 bits", `listener "x" {
  address = "10.77.0.1"
  port    = 7471
  options { ack_timeout = 32 }
}`, "Invalid option", "ack_timeout must be from 0 to 31 (the exponent n of the ACK timeout, 4.096 µs × 2^n); got 32.", 4, 27},
		ruleCase{"ack timeout of a datagram endpoint", `endpoint "x" {
  address    = "10.77.0.1"
  port       = 7471
  port_space = "udp"
  options { ack_timeout = 14 }
}`, "ACK timeout needs an RC queue pair", `this one's QP is "ud"`, 5, 27},
		ruleCase{"ack timeout of a UC listener", `listener "x" {
  address    = "10.77.0.1"
  port       = 7471
  port_space = "ib"
  qp { type = "uc" }
  options { ack_timeout = 14 }
}`, "ACK timeout needs an RC queue pair", `this one's QP is "uc"`, 6, 27},
		ruleCase{"ipv6_only on an IPv4 listener", `listener "x" {
  address = "0.0.0.0"
  port    = 7471
  options { ipv6_only = true }
}`, "ipv6_only needs an IPv6 address", `this listener's address "0.0.0.0" is IPv4, which the kernel binds to its own family only anyway`, 4, 25},
		ruleCase{"ipv6_only on a sensitive IPv4 address", `listener "x" {
  address = sensitive("10.77.0.1")
  port    = 7471
  options { ipv6_only = false }
}`, "ipv6_only needs an IPv6 address", "(The address is sensitive, so it is not shown.)", 4, 25},
		ruleCase{"ipv6_only on an endpoint", `endpoint "x" {
  address = "fd00::1"
  port    = 7471
  options { ipv6_only = true }
}`, "Unsupported argument", `An argument named "ipv6_only" is not expected here.`, 4, 13},
		ruleCase{"negative responder resources", `listener "x" {
  address = "10.77.0.1"
  port    = 7471
  accept { responder_resources = -1 }
}`, "Invalid accept parameter", "responder_resources must be from 0 to 255 (an 8-bit field of rdma_conn_param); got -1.", 4, 34},
	)
}

func TestOptionsDecode(t *testing.T) {
	cfg := mustLoad(t, map[string]string{"main.rdma.hcl": `
listener "any6" {
  address = "::"
  port    = 7471
  options {
    type_of_service = 106
    ack_timeout     = 14
    reuse_address   = true
    ipv6_only       = false
  }
}
listener "plain" {
  address = "10.77.0.1"
  port    = 7472
  accept {
    responder_resources = 0
  }
}
endpoint "e" {
  address = "10.77.0.1"
  port    = 7472
  options {
    type_of_service = 0
  }
  connect {
    initiator_depth = 4
  }
}
`})
	l := instance(t, cfg, "listener.any6").Listener
	o := l.Options
	if o == nil || o.TypeOfService == nil || *o.TypeOfService != 106 || o.AckTimeout == nil || *o.AckTimeout != 14 ||
		o.ReuseAddress == nil || !*o.ReuseAddress || o.IPv6Only == nil || *o.IPv6Only {
		t.Fatalf("listener options = %+v", o)
	}
	if l.Accept.ResponderResources != FromDevice || l.Accept.InitiatorDepth != FromDevice {
		t.Errorf("left out, accept's rd atomics = %d, %d; want FromDevice", l.Accept.ResponderResources, l.Accept.InitiatorDepth)
	}
	p := instance(t, cfg, "listener.plain").Listener
	if p.Options != nil {
		t.Errorf("no options block gives %+v, want nil", p.Options)
	}
	if p.Accept.ResponderResources != 0 || p.Accept.InitiatorDepth != FromDevice {
		t.Errorf("an explicit 0 must stay 0: %+v", p.Accept)
	}
	e := instance(t, cfg, "endpoint.e").Endpoint
	if e.Options == nil || e.Options.TypeOfService == nil || *e.Options.TypeOfService != 0 || e.Options.AckTimeout != nil || e.Options.ReuseAddress != nil {
		t.Errorf("endpoint options = %+v", e.Options)
	}
	if e.Connect.InitiatorDepth != 4 || e.Connect.ResponderResources != FromDevice {
		t.Errorf("endpoint connect = %+v", e.Connect)
	}
}

// Every option is set before the bind or the route that reads it, so none
// can change on a live id: each forces replacement, as adding or removing
// the block does; responder_resources and initiator_depth too.
func TestOptionsForceReplacement(t *testing.T) {
	for _, k := range []string{"listener", "endpoint"} {
		kind := map[string]addrs.Kind{"listener": addrs.Listener, "endpoint": addrs.Endpoint}[k]
		if !RequiresReplace(kind, attrPath("options")) {
			t.Errorf("%s: adding or removing options must force replacement", k)
		}
		names := []string{"type_of_service", "ack_timeout", "reuse_address"}
		if k == "listener" {
			names = append(names, "ipv6_only")
		}
		for _, n := range names {
			if !RequiresReplace(kind, attrPath("options", n)) {
				t.Errorf("%s: options.%s must force replacement", k, n)
			}
		}
	}
	if !RequiresReplace(addrs.Listener, attrPath("accept", "responder_resources")) || !RequiresReplace(addrs.Endpoint, attrPath("connect", "initiator_depth")) {
		t.Errorf("rd atomics must force replacement")
	}
	if got := strings.Join(Schema(addrs.Endpoint).NestedBlock("options").Block.names(), " "); strings.Contains(got, "ipv6_only") {
		t.Errorf("an endpoint's options have ipv6_only: %s", got)
	}
}
