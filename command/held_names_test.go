package command

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A lost state: plan refuses to make what the agent still holds, naming
// import, and import (whose own plan must not refuse it) adopts it.
func TestLostStateIsRefusedByPlanAndImported(t *testing.T) {
	meta := withFabric(t, newMemFabric())
	dir := planDir(t, planTestConfig)
	if code, _, errs := meta.cmd(t, dir, "", "apply", "-auto-approve"); code != 0 {
		t.Fatalf("apply: %d %s", code, errs)
	}
	for _, f := range []string{"rdmaform.rdmastate", "rdmaform.rdmastate.backup"} {
		os.Remove(filepath.Join(dir, f))
	}
	if code, _, errs := meta.cmd(t, dir, "", "plan", "-no-color"); code != 1 || !strings.Contains(errs, "Error: Object already held by the agent") || !strings.Contains(errs, `"rdmaform import listener.loop"`) {
		t.Fatalf("plan of a lost state: %d\n%s", code, errs)
	}
	for _, a := range []string{"protection_domain.rxe", "listener.loop", "endpoint.client[0]", "endpoint.client[1]"} {
		if code, out, errs := meta.cmd(t, dir, "", "import", "-no-color", a); code != 0 || !strings.Contains(out, "Import successful!") {
			t.Fatalf("import %s: %d\n%s\n%s", a, code, out, errs)
		}
	}
	// As Terraform's: only the output, which import does not record.
	if code, out, errs := meta.cmd(t, dir, "", "plan", "-detailed-exitcode", "-no-color"); code != 2 || strings.Contains(out, "will be") || !strings.Contains(out, "+ port = 7471") {
		t.Fatalf("plan after the imports: %d\n%s\n%s", code, out, errs)
	}
}
