package command

import (
	"strings"
	"testing"
)

func TestTargetingWarnsAsTerraformDoes(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	dir := planDir(t, planTestConfig)
	code, _, errs := meta.cmd(t, dir, "", "plan", "-target=listener.loop", "-no-color")
	if code != 0 || strings.Count(errs, "Warning: Resource targeting is in effect") != 1 {
		t.Fatalf("plan -target: %d\n%s", code, errs)
	}
	code, out, errs := meta.cmd(t, dir, "", "apply", "-target=listener.loop", "-auto-approve", "-no-color")
	if code != 0 || !strings.Contains(errs, "Warning: Applied changes may be incomplete") || !strings.Contains(out, "Resources: 2 added") {
		t.Fatalf("apply -target: %d\n%s\n%s", code, out, errs)
	}
	if _, _, errs := meta.cmd(t, dir, "", "plan", "-no-color"); strings.Contains(errs, "targeting") {
		t.Fatalf("plan without -target warns:\n%s", errs)
	}
	if _, _, errs := meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color"); strings.Contains(errs, "may be incomplete") {
		t.Fatalf("apply without -target warns:\n%s", errs)
	}
}

// destroy -target takes the objects that depend on the target too (they
// must go first), and the plan says, for each, which block brought it.
func TestDestroyTargetSaysWhyDependentsGo(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	dir := planDir(t, planTestConfig)
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color"); code != 0 {
		t.Fatalf("apply: %d\n%s%s", code, out, errs)
	}
	code, out, errs := meta.cmd(t, dir, "", "plan", "-destroy", "-target=listener.loop", "-no-color")
	if code != 0 || strings.Count(out, "# (because it depends on listener.loop, which -target destroys: it goes first)") != 2 {
		t.Fatalf("plan -destroy -target: %d\n%s%s", code, out, errs)
	}
}
