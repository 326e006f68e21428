package command

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/planner"
)

// heldPortsConfig is the audit's configuration: a listener and two
// endpoints toward it, in an agent namespace of their own.
const heldPortsConfig = `rdmaform {
  agent {
    namespace = %q
  }
}

variable "port" {
  type    = number
  default = %d
}

listener "loop" {
  address = "10.77.0.1"
  port    = var.port
  qp {}
}

endpoint "c" {
  count   = 2
  address = listener.loop.address
  port    = listener.loop.port
  qp {}
}
`

// Two configurations share one agent, each in its namespace; b moving
// its listener to a's port is refused by plan, and by apply before it
// destroys anything, at b's port.
func TestPlanRefusesAPortAnotherConfigurationHolds(t *testing.T) {
	f := newMemFabric()
	f.listeners = map[string]planner.LiveListener{}
	meta := withFabric(t, f)
	t.Chdir(".") // the commands change directory
	a, b := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(a, "main.rdma.hcl"), []byte(fmt.Sprintf(heldPortsConfig, "a", 7610)), 0o644)
	os.WriteFile(filepath.Join(b, "main.rdma.hcl"), []byte(fmt.Sprintf(heldPortsConfig, "b", 7611)), 0o644)
	for _, dir := range []string{a, b} {
		if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve"); code != 0 {
			t.Fatalf("apply in %s: %d\n%s\n%s", dir, code, out, errs)
		}
	}

	want := []string{
		"Error: Port held by another configuration",
		"listener.loop: 10.77.0.1:7610 (tcp) is held by listener.loop@a, which this agent holds for another configuration; choose another port, or destroy that listener first.",
		"main.rdma.hcl:14:13", // the listener's port
	}
	code, out, errs := meta.cmd(t, b, "", "plan", "-no-color", "-var", "port=7610")
	for _, w := range want {
		if code != 1 || !strings.Contains(errs, w) {
			t.Fatalf("plan: want exit 1 and %q; got %d\n%s\n%s", w, code, out, errs)
		}
	}
	code, out, errs = meta.cmd(t, b, "", "apply", "-auto-approve", "-no-color", "-var", "port=7610")
	for _, w := range want {
		if code != 1 || !strings.Contains(errs, w) {
			t.Fatalf("apply: want exit 1 and %q; got %d\n%s\n%s", w, code, out, errs)
		}
	}
	for _, name := range []string{"listener.loop@b", "endpoint.c[0]@b", "endpoint.c[1]@b", "listener.loop@a"} {
		if _, ok := f.live[name]; !ok {
			t.Errorf("apply destroyed %s: %v", name, f.live)
		}
	}
	if code, out, errs := meta.cmd(t, b, "", "plan", "-no-color", "-var", "port=7612"); code != 0 {
		t.Fatalf("a free port: %d\n%s\n%s", code, out, errs)
	}
}
