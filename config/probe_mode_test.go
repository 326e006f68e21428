package config

import (
	"strings"
	"testing"
)

// probeModeCases are the probe mode's diagnostics, each at its
// file:line:col, each alone.
var probeModeCases = []ruleCase{
	{"unknown probe mode", `endpoint "a" {
  address = "10.77.0.2"
  port    = 7471
  qp {}
  probe {
    mode = "wirte"
  }
}`, "Invalid probe mode", `mode must be "send", "write", "read" or "rping"; got "wirte". Did you mean "write"?`, 6, 12},
	{"one-sided probe on a UD endpoint (its implied qp)", `endpoint "a" {
  address    = "10.77.0.2"
  port       = 7471
  port_space = "udp"
  probe {
    mode = "read"
  }
}`, "Probe mode needs an RC queue pair", `A probe of mode "read" uses RDMA WRITE or READ, which a UD queue pair cannot do`, 6, 12},
	{"one-sided probe on a UD queue pair", `endpoint "a" {
  address    = "10.77.0.2"
  port       = 7471
  port_space = "udp"
  qp {}
  probe {
    mode = "write"
  }
}`, "Probe mode needs an RC queue pair", `A probe of mode "write" uses RDMA WRITE or READ, which a UD queue pair cannot do`, 7, 12},
	{"read probe with no RDMA READ allowed", `endpoint "a" {
  address = "10.77.0.2"
  port    = 7471
  qp {}
  connect {
    initiator_depth = 0
  }
  probe {
    mode = "read"
  }
}`, "Probe mode needs RDMA READs", "connect.initiator_depth of 1 or more (it is 0 here)", 9, 12},
	{"rping probe with no RDMA READ allowed toward it", `endpoint "a" {
  address = "10.77.0.2"
  port    = 7471
  qp {}
  connect {
    responder_resources = 0
  }
  probe {
    mode = "rping"
  }
}`, "Probe mode needs RDMA READs", "connect.responder_resources of 1 or more (it is 0 here)", 9, 12},
	{"write probe larger than the listener's memory", `endpoint "a" {
  address = "10.77.0.2"
  port    = 7471
  qp {}
  probe {
    mode = "write"
    size = 4097
  }
}`, "Invalid probe size", "size must be from 1 to 4096 bytes (the agent's probe buffers); got 4097.", 7, 12},
	{"rping probe toward an rdmaform listener", `listener "l" {
  address = "10.77.0.1"
  port    = 7471
  qp {}
  accept {
    echo = true
  }
}
endpoint "a" {
  address = "10.77.0.1"
  port    = listener.l.port
  qp {}
  probe {
    mode = "rping"
  }
}`, "rping probe toward an rdmaform listener", `endpoint.a probes listener.l with mode "rping"`, 14, 12},
}

func TestProbeModeRules(t *testing.T) {
	for _, tc := range probeModeCases {
		t.Run(tc.name, func(t *testing.T) {
			l := NewLoader()
			_, diags := l.LoadSources(map[string][]byte{"main.rdma.hcl": []byte(tc.src)}, VarInputs{})
			var b strings.Builder
			_ = l.WriteDiagnostics(&b, diags, false, 0)
			if len(diags) != 1 {
				t.Fatalf("%d diagnostics, want exactly 1:\n%s", len(diags), b.String())
			}
			d := diags[0]
			if d.Summary != tc.summary || !strings.Contains(d.Detail, tc.detail) {
				t.Fatalf("no diagnostic %q containing %q; got:\n%s", tc.summary, tc.detail, b.String())
			}
			if d.Subject == nil || d.Subject.Filename != "main.rdma.hcl" || d.Subject.Start.Line != tc.line || d.Subject.Start.Column != tc.col {
				t.Errorf("subject = %v, want main.rdma.hcl:%d,%d", d.Subject, tc.line, tc.col)
			}
		})
	}
}

// Every mode is valid on an RC endpoint and reaches its Probe; an omitted
// mode is "send". An rping probe toward a peer no listener of the
// configuration is needs no echo.
func TestProbeModes(t *testing.T) {
	for _, mode := range append(ProbeModes, "") {
		src := `endpoint "a" {
  address = "10.77.0.2"
  port    = 7471
  qp {}
  probe {
` + map[bool]string{true: "", false: `    mode = "` + mode + `"` + "\n"}[mode == ""] + `  }
}
listener "l" {
  address = "10.77.0.1"
  port    = 7471
  qp {}
}`
		cfg, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(src)}, VarInputs{})
		if diags.HasErrors() {
			t.Fatalf("mode %q: %v", mode, diags)
		}
		want := mode
		if want == "" {
			want = ProbeSend
		}
		for _, inst := range cfg.Instances {
			if inst.Endpoint != nil && (inst.Endpoint.Probe == nil || inst.Endpoint.Probe.Mode != want) {
				t.Errorf("mode %q: probe %+v, want mode %q", mode, inst.Endpoint.Probe, want)
			}
		}
	}
}
