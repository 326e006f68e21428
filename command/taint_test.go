package command

import (
	"strings"
	"testing"
)

func TestTaintReplacesAndUntaintKeeps(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	dir := planDir(t, planTestConfig)
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve"); code != 0 {
		t.Fatalf("apply: %d\n%s\n%s", code, out, errs)
	}
	code, out, errs := meta.cmd(t, dir, "", "taint", "endpoint.client[1]")
	if code != 0 || !strings.Contains(out, "Resource instance endpoint.client[1] has been marked as tainted.") {
		t.Fatalf("taint: %d\n%s\n%s", code, out, errs)
	}
	if code, out, _ := meta.cmd(t, dir, "", "state", "show", "endpoint.client[1]"); code != 0 || !strings.Contains(out, "# endpoint.client[1]: (tainted)") {
		t.Fatalf("state show of a tainted object: %d\n%s", code, out)
	}
	if code, out, _ := meta.cmd(t, dir, "", "show", "-json"); code != 0 || strings.Count(out, `"tainted":true`) != 1 {
		t.Fatalf("show -json of a tainted object: %d\n%s", code, out)
	}
	code, out, _ = meta.cmd(t, dir, "", "plan", "-no-color", "-detailed-exitcode")
	if code != 2 || !strings.Contains(out, "# endpoint.client[1] is tainted, so must be replaced") ||
		!strings.Contains(out, "Plan: 1 to add, 0 to change, 1 to destroy.") {
		t.Fatalf("plan of a tainted object: %d\n%s", code, out)
	}
	if code, out, _ := planDocument(t, meta, dir); code != 0 || !strings.Contains(out, `"action_reason":"replace_because_tainted"`) {
		t.Fatalf("plan -json of a tainted object: %d\n%s", code, out)
	}

	if code, out, _ := meta.cmd(t, dir, "", "untaint", "endpoint.client[1]"); code != 0 || !strings.Contains(out, "has been successfully untainted") {
		t.Fatalf("untaint: %d\n%s", code, out)
	}
	if code, out, _ := meta.cmd(t, dir, "", "plan", "-detailed-exitcode"); code != 0 {
		t.Fatalf("plan after untaint: %d\n%s", code, out)
	}
	if code, _, errs := meta.cmd(t, dir, "", "untaint", "endpoint.client[1]"); code != 1 || !strings.Contains(errs, "is not tainted") {
		t.Fatalf("untaint of an untainted object: %d\n%s", code, errs)
	}

	meta.cmd(t, dir, "", "taint", "endpoint.client[1]")
	before := f.qp
	code, out, errs = meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color")
	if code != 0 || !strings.Contains(out, "Resources: 1 added, 0 changed, 1 destroyed.") || f.qp == before {
		t.Fatalf("apply of a tainted object: %d\n%s\n%s", code, out, errs)
	}
	if code, out, _ := meta.cmd(t, dir, "", "plan", "-detailed-exitcode"); code != 0 {
		t.Fatalf("plan after replacing the tainted object: %d\n%s", code, out)
	}
}

func TestTaintOfWhatIsNotThere(t *testing.T) {
	meta := withFabric(t, newMemFabric())
	dir := planDir(t, planTestConfig)
	if code, _, errs := meta.cmd(t, dir, "", "taint", "endpoint.client[7]"); code != 1 || !strings.Contains(errs, "endpoint.client[7] is not in the state") {
		t.Fatalf("taint of a missing object: %d\n%s", code, errs)
	}
	if code, out, errs := meta.cmd(t, dir, "", "taint", "-allow-missing", "endpoint.client[7]"); code != 0 || !strings.Contains(out, "nothing to do") {
		t.Fatalf("taint -allow-missing: %d\n%s\n%s", code, out, errs)
	}
	if code, _, errs := meta.cmd(t, dir, "", "taint", "endpoint.[x"); code != 1 || !strings.Contains(errs, "Invalid address") {
		t.Fatalf("taint of a bad address: %d\n%s", code, errs)
	}
}

// taint and state show of a block with instances say which to name.
func TestBlockAddressNamesItsInstances(t *testing.T) {
	dir := stateDir(t, testState)
	code, _, errs := stateCmd(t, dir, "", "taint", "endpoint.client")
	if code != 1 || !strings.Contains(errs, "It names a block with instances endpoint.client[3], endpoint.client[10]: give one.") {
		t.Errorf("taint endpoint.client: %d %s", code, errs)
	}
	code, _, errs = stateCmd(t, dir, "", "state", "show", "endpoint.client")
	if code != 1 || !strings.Contains(errs, "It names a block with instances endpoint.client[3], endpoint.client[10]: give one.") {
		t.Errorf("state show endpoint.client: %d %s", code, errs)
	}
}
