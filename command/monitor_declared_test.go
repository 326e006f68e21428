package command

import (
	"fmt"
	"strings"
	"syscall"
	"testing"

	"github.com/rdmaform/rdmaform/tui"
)

// The monitor is given every object the configuration and the state
// declare: a create that failed (in the configuration only), the others
// (in both); and its taint is rdmaform taint's.
func TestMonitorDeclaredAndTaint(t *testing.T) {
	f := newMemFabric()
	f.fail["endpoint.client[1]"] = fmt.Errorf("rdma_connect: %w (ECONNREFUSED)", syscall.ECONNREFUSED)
	meta := withFabric(t, f)
	dir := planDir(t, planTestConfig)
	if code, _, _ := meta.cmd(t, dir, "", "apply", "-auto-approve"); code == 0 {
		t.Fatal("apply succeeded with a failing create")
	}
	t.Chdir(dir)
	ms := monitorState{meta: meta}
	got, err := ms.declared()
	if err != nil {
		t.Fatal(err)
	}
	byAddr := map[string]tui.Declared{}
	for _, d := range got {
		byAddr[d.Address] = d
	}
	if len(got) != 4 {
		t.Errorf("declared %d objects, want 4: %+v", len(got), got)
	}
	if d := byAddr["endpoint.client[1]"]; !d.InConfig || d.InState || d.Kind != tui.KindEndpoint {
		t.Errorf("the failed create: %+v, want in the configuration only", d)
	}
	if d := byAddr["endpoint.client[0]"]; !d.InConfig || !d.InState || d.Tainted {
		t.Errorf("the created endpoint: %+v", d)
	}
	if d := byAddr["protection_domain.rxe"]; d.Kind != tui.KindProtectionDomain || !d.InState {
		t.Errorf("the protection domain: %+v", d)
	}

	if err := ms.taint("endpoint.client[0]"); err != nil {
		t.Fatalf("taint: %v", err)
	}
	got, _ = ms.declared()
	for _, d := range got {
		if d.Address == "endpoint.client[0]" && !d.Tainted {
			t.Errorf("endpoint.client[0] is not tainted after the monitor's taint: %+v", d)
		}
	}
	err = ms.taint("endpoint.client[1]")
	if err == nil || !strings.HasPrefix(err.Error(), "No such resource instance: endpoint.client[1] is not in the state") || strings.Contains(err.Error(), "\n") {
		t.Errorf("taint of the failed create: %v", err)
	}
}
