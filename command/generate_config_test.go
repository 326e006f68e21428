package command

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/apply"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
)

// specFabric is the commands' fake fabric that also says what its objects
// were made with, as the agent does for -generate-config-out.
type specFabric struct {
	*memFabric
	specs map[string]apply.Spec
}

func (f specFabric) ReadSpec(_ context.Context, h apply.Handle) (apply.Spec, error) {
	s, ok := f.specs[h.Name]
	if !ok {
		return apply.Spec{}, errors.New("the agent holds no object named \"" + h.Name + "\" (\"rdmaform status\" lists what it holds)")
	}
	return s, nil
}

func withSpecFabric(f specFabric) Meta {
	return Meta{Connect: func(context.Context, string, io.Writer, func() bool) (*fabricConn, error) {
		return &fabricConn{Refresher: f.memFabric, Fabric: f, CreateBeforeDestroy: true}, nil
	}}
}

func intp(n int) *int    { return &n }
func boolp(b bool) *bool { return &b }

// What the agent holds, with values away from the defaults, so that each
// is written.
var (
	heldListener = &config.Listener{Address: "10.77.0.1", Port: 7471, PortSpace: "tcp", Backlog: 16, PD: "pd-7",
		QP:      &config.QP{Type: "rc", MaxSendWR: 32, MaxRecvWR: 32, MaxSendSGE: 1, MaxRecvSGE: 2},
		Options: &config.Options{TypeOfService: intp(96), ReuseAddress: boolp(true)},
		SRQ:     &config.SRQ{MaxRecvWR: 512, MaxRecvSGE: 1},
		Accept:  config.Accept{ResponderResources: config.FromDevice, InitiatorDepth: 4, PrivateData: []byte("hi ${x}"), RejectPrivateData: []byte{0x80, 0x01}, MaxConnections: 8, Echo: true}}
	heldEndpoint = &config.Endpoint{Address: "10.77.0.1", Port: 7471, PortSpace: "tcp",
		QP:        &config.QP{Type: "rc", MaxSendWR: 64, MaxRecvWR: 64, MaxSendSGE: 1, MaxRecvSGE: 1, MaxInlineData: 128},
		Connect:   config.Connect{ResponderResources: config.FromDevice, InitiatorDepth: config.FromDevice, RetryCount: 7, RNRRetryCount: 3, PrivateData: []byte("client-0"), Timeout: 500 * time.Millisecond},
		Reconnect: &config.Reconnect{MinBackoff: 100 * time.Millisecond, MaxBackoff: 5 * time.Second},
		Probe:     &config.Probe{Interval: time.Second, Size: 64, Timeout: time.Second, Mode: "send"}, CreateTimeout: 30 * time.Second}
)

const wantGenerated = `# __generated__ by rdmaform
# Please review these blocks and move them into your main configuration files.

# __generated__ by rdmaform from "listener.loop"
listener "loop" {
  address = "10.77.0.1"
  port    = 7471
  backlog = 16
  pd      = "pd-7"
  qp {
    type         = "rc"
    max_send_wr  = 32
    max_recv_wr  = 32
    max_send_sge = 1
    max_recv_sge = 2
  }
  options {
    type_of_service = 96
    reuse_address   = true
  }
  srq {
    max_recv_wr  = 512
    max_recv_sge = 1
  }
  accept {
    initiator_depth            = 4
    private_data               = "hi $${x}"
    reject_private_data_base64 = "gAE="
    max_connections            = 8
    echo                       = true
  }
}

# __generated__ by rdmaform from "endpoint.old"
endpoint "client" {
  address = "10.77.0.1"
  port    = 7471
  qp {
    type            = "rc"
    max_send_wr     = 64
    max_recv_wr     = 64
    max_send_sge    = 1
    max_recv_sge    = 1
    max_inline_data = 128
  }
  connect {
    rnr_retry_count = 3
    private_data    = "client-0"
    timeout         = "500ms"
  }
  reconnect {
    min_backoff = "100ms"
    max_backoff = "5s"
  }
  probe {
    interval = "1s"
    size     = 64
    timeout  = "1s"
  }
  timeouts {
    create = "30s"
  }
}
`

const generateConfigImports = `
import {
  to = listener.loop
}

import {
  to = endpoint.client
  id = "endpoint.old"
}
`

// plan -generate-config-out writes, for each import block without a
// block, what the agent holds (as Terraform 1.5's does), and plans with
// it: the objects are imported. The blocks load to the very specs the
// agent holds, so the agent's import check (the same spec) passes, and
// after apply a plan has nothing to do.
func TestPlanGenerateConfigOut(t *testing.T) {
	f := specFabric{newMemFabric(), map[string]apply.Spec{"listener.loop": {Listener: heldListener}, "endpoint.old": {Endpoint: heldEndpoint}}}
	f.live["listener.loop"] = "tok-l"
	f.live["endpoint.old"] = "tok-e"
	meta := withSpecFabric(f)
	dir := planDir(t, generateConfigImports)

	code, out, errs := meta.cmd(t, dir, "", "plan", "-no-color", "-generate-config-out=generated.rdma.hcl")
	if code != 0 {
		t.Fatalf("plan: exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"rdmaform has generated configuration and written it to generated.rdma.hcl.", "# listener.loop will be imported", "# endpoint.client will be imported", "Plan: 2 to import, 0 to add, 0 to change, 0 to destroy."} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	generated, err := os.ReadFile(filepath.Join(dir, "generated.rdma.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	if string(generated) != wantGenerated {
		t.Errorf("generated.rdma.hcl:\n%s\nwant\n%s", generated, wantGenerated)
	}

	cfg, diags := config.NewLoader().Load(dir, config.VarInputs{})
	if diags.HasErrors() {
		t.Fatalf("the generated configuration does not load: %v", diags)
	}
	l := cfg.Instances[addrs.Instance{Resource: addrs.Resource{Kind: addrs.Listener, Name: "loop"}}]
	e := cfg.Instances[addrs.Instance{Resource: addrs.Resource{Kind: addrs.Endpoint, Name: "client"}}]
	if l == nil || e == nil {
		t.Fatalf("the generated configuration lacks listener.loop or endpoint.client")
	}
	if !reflect.DeepEqual(l.Listener, heldListener) {
		t.Errorf("the generated listener loads as\n%+v\nwant what the agent holds\n%+v", *l.Listener, *heldListener)
	}
	if !reflect.DeepEqual(e.Endpoint, heldEndpoint) {
		t.Errorf("the generated endpoint loads as\n%+v\nwant what the agent holds\n%+v", *e.Endpoint, *heldEndpoint)
	}

	if code, out, errs := meta.cmd(t, dir, "", "validate", "-no-color"); code != 0 {
		t.Errorf("validate: exit %d\n%s\n%s", code, out, errs)
	}
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-no-color", "-auto-approve"); code != 0 || !strings.Contains(out, "2 imported") {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errs)
	}
	if code, out, errs := meta.cmd(t, dir, "", "plan", "-no-color", "-detailed-exitcode"); code != 0 {
		t.Errorf("plan after apply: exit %d, want 0 (no changes)\n%s\n%s", code, out, errs)
	}
}

// The file must be new, as Terraform's: an existing one is refused, in
// Terraform's words, and left as it was.
func TestPlanGenerateConfigOutRefusesAnExistingFile(t *testing.T) {
	f := specFabric{newMemFabric(), map[string]apply.Spec{"listener.loop": {Listener: heldListener}}}
	dir := planDir(t, generateConfigImports)
	existing := filepath.Join(dir, "generated.rdma.hcl")
	writeRC(t, existing, "# mine\n")
	code, _, errs := withSpecFabric(f).cmd(t, dir, "", "plan", "-no-color", "-generate-config-out=generated.rdma.hcl")
	if code != 1 || !strings.Contains(errs, "Error: Target generated file already exists") || !strings.Contains(errs, "rdmaform can only write generated config into a new file.") {
		t.Errorf("exit %d\n%s", code, errs)
	}
	if readRC(t, existing) != "# mine\n" {
		t.Errorf("the existing file changed: %q", readRC(t, existing))
	}
}

// An id the agent does not hold is an error at the import block
// (file:line:col), and no file is written.
func TestPlanGenerateConfigOutUnknownID(t *testing.T) {
	f := specFabric{newMemFabric(), map[string]apply.Spec{"listener.loop": {Listener: heldListener}}}
	dir := planDir(t, generateConfigImports)
	code, _, errs := withSpecFabric(f).cmd(t, dir, "", "plan", "-no-color", "-generate-config-out=generated.rdma.hcl")
	if code != 1 || !strings.Contains(errs, "Error: Cannot generate configuration for endpoint.client") ||
		!strings.Contains(errs, "on main.rdma.hcl:6:1, in import:") ||
		!strings.Contains(errs, `the agent holds no object named "endpoint.old"`) {
		t.Errorf("exit %d\n%s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "generated.rdma.hcl")); err == nil {
		t.Error("a file was written")
	}
}
