package config

import (
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// A listener that echoes and an endpoint that probes need a QP, and the
// only one that serves them is the port space's default: with no qp block
// written they get the one `qp {}` gives, in their typed form and in the
// value the plan and the state show. Without echo or probe nothing is
// implied.
func TestEchoAndProbeImplyTheDefaultQP(t *testing.T) {
	cfg := mustLoad(t, map[string]string{"main.rdma.hcl": `
listener "echo" {
  address = "10.77.0.1"
  port    = 7471
  accept {
    echo = true
  }
}

listener "quiet" {
  address = "10.77.0.1"
  port    = 7472
}

endpoint "probe" {
  address = listener.echo.address
  port    = listener.echo.port
  probe {}
}

endpoint "ud" {
  address    = "10.77.0.1"
  port       = 7473
  port_space = "udp"
  probe {}
}

endpoint "plain" {
  address = "10.77.0.1"
  port    = 7472
}
`})
	for addr, want := range map[string]QPType{"listener.echo": QPTypeRC, "endpoint.probe": QPTypeRC, "endpoint.ud": QPTypeUD, "listener.quiet": "", "endpoint.plain": ""} {
		inst := instanceNamed(t, cfg, addr)
		var qp *QP
		if inst.Listener != nil {
			qp = inst.Listener.QP
		} else {
			qp = inst.Endpoint.QP
		}
		v := inst.Value.GetAttr("qp")
		if want == "" {
			if qp != nil || !v.IsNull() {
				t.Errorf("%s: a qp implied without echo or probe: %#v, %#v", addr, qp, v)
			}
			continue
		}
		if qp == nil || qp.Type != want || qp.MaxSendWR != DefaultMaxWR || qp.MaxRecvSGE != DefaultMaxSGE {
			t.Errorf("%s: qp %#v, want the default of type %s", addr, qp, want)
		}
		if v.IsNull() || !v.GetAttr("type").RawEquals(cty.StringVal(string(want))) || !v.GetAttr("max_send_wr").RawEquals(cty.NumberIntVal(DefaultMaxWR)) {
			t.Errorf("%s: value's qp %#v, want qp {} of type %s", addr, v, want)
		}
	}
}

func instanceNamed(t *testing.T, cfg *Config, addr string) *Instance {
	t.Helper()
	for a, inst := range cfg.Instances {
		if a.String() == addr {
			return inst
		}
	}
	t.Fatalf("no instance %s", addr)
	return nil
}
