package command

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Two configurations on one host using the same addresses: the second is
// refused until it has a namespace of its own, then both are managed
// apart.
func TestAgentNamespaceKeepsConfigurationsApart(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	a := planDir(t, planTestConfig)
	b := t.TempDir()
	if code, out, errs := meta.cmd(t, a, "", "apply", "-auto-approve"); code != 0 {
		t.Fatalf("apply a: %d\n%s\n%s", code, out, errs)
	}
	os.WriteFile(filepath.Join(b, "main.rdma.hcl"), []byte(planTestConfig), 0o644)
	// Refused at plan, before anything is made, naming the way out.
	if code, _, errs := meta.cmd(t, b, "", "apply", "-auto-approve"); code != 1 || !strings.Contains(errs, "Error: Object already held by the agent") ||
		!strings.Contains(errs, "named protection_domain.rxe") || !strings.Contains(errs, `namespace = "NAME"`) || len(f.live) != 4 {
		t.Fatalf("apply b without a namespace: %d\n%s", code, errs)
	}
	meta.cmd(t, b, "", "destroy", "-auto-approve") // what b made before the failure, if anything
	os.WriteFile(filepath.Join(b, "main.rdma.hcl"), []byte("rdmaform {\n  agent {\n    namespace = \"b\"\n  }\n}\n"+planTestConfig), 0o644)
	if code, out, errs := meta.cmd(t, b, "", "apply", "-auto-approve"); code != 0 {
		t.Fatalf("apply b with a namespace: %d\n%s\n%s", code, out, errs)
	}
	for _, name := range []string{"protection_domain.rxe", "endpoint.client[1]", "protection_domain.rxe@b", "listener.loop@b", "endpoint.client[1]@b"} {
		if _, ok := f.live[name]; !ok {
			t.Errorf("the fabric holds no %s: %v", name, f.live)
		}
	}
	for _, dir := range []string{a, b} {
		if code, out, errs := meta.cmd(t, dir, "", "plan", "-detailed-exitcode"); code != 0 {
			t.Fatalf("plan in %s: %d\n%s\n%s", dir, code, out, errs)
		}
	}
	if code, out, errs := meta.cmd(t, b, "", "state", "show", "endpoint.client[1]"); code != 0 || !strings.Contains(out, `agent_handle = "endpoint.client[1]@b"`) {
		t.Fatalf("state show in b: %d\n%s\n%s", code, out, errs)
	}
	if code, out, errs := meta.cmd(t, b, "", "destroy", "-auto-approve"); code != 0 || len(f.live) != 4 {
		t.Fatalf("destroy b: %d (a's 4 objects should remain: %v)\n%s\n%s", code, f.live, out, errs)
	}
	if code, out, errs := meta.cmd(t, a, "", "plan", "-detailed-exitcode"); code != 0 {
		t.Fatalf("plan in a after b's destroy: %d\n%s\n%s", code, out, errs)
	}
}
