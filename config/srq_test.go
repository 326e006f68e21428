package config

import (
	"strings"
	"testing"
)

// Each bad srq block draws one diagnostic at the place to fix.
func TestSRQRules(t *testing.T) {
	for _, tc := range []ruleCase{
		{"srq without qp", `listener "x" {
  address = "10.77.0.1"
  port    = 7471
  srq {}
}`, "SRQ needs an RC queue pair", `without a qp block it makes none: add "qp {}"`, 4, 3},
		{"srq on udp", `listener "x" {
  address    = "10.77.0.1"
  port       = 7471
  port_space = "udp"
  qp {}
  srq { max_recv_wr = 64 }
}`, "SRQ needs an RC queue pair", `a listener on the udp port space answers datagram (UD) requests`, 6, 3},
		{"srq with a ud qp", `listener "x" {
  address    = "10.77.0.1"
  port       = 7471
  port_space = "ib"
  qp { type = "ud" }
  srq {}
}`, "SRQ needs an RC queue pair", `this listener's qp block has type "ud"`, 6, 3},
		{"srq max_recv_wr zero", `listener "x" {
  address = "10.77.0.1"
  port    = 7471
  qp {}
  srq {
    max_recv_wr = 0
  }
}`, "Invalid SRQ capacity", "max_recv_wr must be from 1 to 1048576", 6, 19},
		{"srq max_recv_sge too many", `listener "x" {
  address = "10.77.0.1"
  port    = 7471
  qp {}
  srq { max_recv_sge = 100 }
}`, "Invalid SRQ capacity", "max_recv_sge must be from 1 to 64", 5, 24},
		{"srq max_recv_wr not whole", `listener "x" {
  address = "10.77.0.1"
  port    = 7471
  qp {}
  srq { max_recv_wr = 1.5 }
}`, "Invalid SRQ capacity", "max_recv_wr must be a whole number; got 1.5.", 5, 23},
		{"srq twice", `listener "x" {
  address = "10.77.0.1"
  port    = 7471
  qp {}
  srq {}
  srq {}
}`, "Duplicate srq block", "", 6, 3},
	} {
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
				t.Fatalf("got %q %q, want %q containing %q", d.Summary, d.Detail, tc.summary, tc.detail)
			}
			if d.Subject == nil || d.Subject.Filename != "main.rdma.hcl" || d.Subject.Start.Line != tc.line || d.Subject.Start.Column != tc.col {
				t.Errorf("subject = %v, want main.rdma.hcl:%d:%d", d.Subject, tc.line, tc.col)
			}
		})
	}
}

// A good srq block decodes, with its defaults.
func TestSRQDecodes(t *testing.T) {
	cfg, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(`
listener "many" {
  address = "10.77.0.1"
  port    = 7471
  qp {}
  srq { max_recv_wr = 1024 }
  accept { echo = true }
}
listener "plain" {
  address = "10.77.0.1"
  port    = 7472
  qp {}
}
`)}, VarInputs{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var many, plain *Listener
	for _, inst := range cfg.Instances {
		switch inst.Addr.String() {
		case "listener.many":
			many = inst.Listener
		case "listener.plain":
			plain = inst.Listener
		}
	}
	if many == nil || many.SRQ == nil || *many.SRQ != (SRQ{MaxRecvWR: 1024, MaxRecvSGE: DefaultMaxSGE}) {
		t.Errorf("listener.many's SRQ = %+v, want 1024 receives of 1 SGE", many.SRQ)
	}
	if plain == nil || plain.SRQ != nil {
		t.Errorf("listener.plain has an SRQ (%+v), though it declares none", plain.SRQ)
	}
}

// The device check compares the srq block with the device's SRQ limits,
// and refuses it on a device without SRQs.
func TestCheckDeviceSRQ(t *testing.T) {
	cfg, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(`
listener "l" {
  address = "10.77.0.1"
  port    = 7471
  qp {}
  srq {
    max_recv_wr  = 20000
    max_recv_sge = 2
  }
}
`)}, VarInputs{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	dev := DeviceAttr{Name: "rxe0", MaxQPWR: 16384, MaxSGE: 32, SRQKnown: true, MaxSRQ: 100, MaxSRQWR: 16384, MaxSRQSGE: 1}
	diags = CheckDevice(cfg, fakeDevices{"rxe0": dev})
	want := []struct {
		detail    string
		line, col int
	}{
		{"listener.l: srq.max_recv_wr = 20000 exceeds rxe0's max_srq_wr of 16384: ibv_create_srq would fail with EINVAL.", 7, 20},
		{"listener.l: srq.max_recv_sge = 2 exceeds rxe0's max_srq_sge of 1", 8, 20},
	}
	if len(diags) != len(want) {
		t.Fatalf("got %d diagnostics, want %d: %v", len(diags), len(want), diags)
	}
	for i, w := range want {
		d := diags[i]
		if d.Summary != "Exceeds the device's limit" || !strings.Contains(d.Detail, w.detail) || d.Subject.Start.Line != w.line || d.Subject.Start.Column != w.col {
			t.Errorf("diagnostic %d = %q %q at %s; want %q at %d,%d", i, d.Summary, d.Detail, d.Subject, w.detail, w.line, w.col)
		}
	}
	dev.MaxSRQ = 0
	diags = CheckDevice(cfg, fakeDevices{"rxe0": dev})
	if len(diags) != 1 || diags[0].Summary != "Device has no shared receive queues" || diags[0].Subject.Start.Line != 6 {
		t.Errorf("on a device without SRQs: %v, want one diagnostic at the srq block (line 6)", diags)
	}
	dev = DeviceAttr{Name: "rxe0", MaxQPWR: 16384, MaxSGE: 32} // an older agent's: SRQ limits unknown
	if diags = CheckDevice(cfg, fakeDevices{"rxe0": dev}); len(diags) != 0 {
		t.Errorf("with the SRQ limits unknown: %v, want none", diags)
	}
}
