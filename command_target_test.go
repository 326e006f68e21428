package main

import (
	"strings"
	"testing"
)

func TestTargetingWarnsAsTerraformDoes(t *testing.T) {
	f := newMemFabric()
	withFabric(t, f)
	dir := planDir(t, planTestConfig)
	code, _, errs := stateCmd(t, dir, "", "plan", "-target=listener.loop", "-no-color")
	if code != 0 || strings.Count(errs, "Warning: Resource targeting is in effect") != 1 {
		t.Fatalf("plan -target: %d\n%s", code, errs)
	}
	code, out, errs := stateCmd(t, dir, "", "apply", "-target=listener.loop", "-auto-approve", "-no-color")
	if code != 0 || !strings.Contains(errs, "Warning: Applied changes may be incomplete") || !strings.Contains(out, "Resources: 2 added") {
		t.Fatalf("apply -target: %d\n%s\n%s", code, out, errs)
	}
	if _, _, errs := stateCmd(t, dir, "", "plan", "-no-color"); strings.Contains(errs, "targeting") {
		t.Fatalf("plan without -target warns:\n%s", errs)
	}
	if _, _, errs := stateCmd(t, dir, "", "apply", "-auto-approve", "-no-color"); strings.Contains(errs, "may be incomplete") {
		t.Fatalf("apply without -target warns:\n%s", errs)
	}
}
