package command

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/state"
)

// markPending rewrites the state as an apply killed after asking the agent
// for the objects at addrs leaves it: each recorded as being made, with
// its agent name and create token, and no attributes yet.
func markPending(t *testing.T, dir string, addrs ...string) {
	t.Helper()
	m := state.NewFilesystem(state.LocalOptions{Path: filepath.Join(dir, "rdmaform.rdmastate")})
	if err := m.RefreshState(); err != nil {
		t.Fatal(err)
	}
	st := m.State().DeepCopy()
	for _, a := range addrs {
		o := st.Objects[a]
		if o == nil {
			t.Fatalf("no %s in the state", a)
		}
		o.Attributes, o.SensitiveAttributes = nil, nil
		o.Facts = state.Facts{AgentHandle: o.Facts.AgentHandle, CreateToken: o.Facts.CreateToken, Status: "creating", Pending: true}
	}
	if err := m.WriteState(st); err != nil {
		t.Fatal(err)
	}
	if err := m.PersistState(); err != nil {
		t.Fatal(err)
	}
}

// After an apply was killed (kill -9, OOM) between asking the agent for
// objects and recording them, the next plan adopts (imports) those the
// agent made with the recorded create token and makes the others; nothing
// is refused as "already exists".
func TestObjectsOfAKilledApplyAreAdoptedOrMade(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	dir := planDir(t, planTestConfig+"\noutput \"qp1\" {\n  value = endpoint.client[1].qp_num\n}\n")
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color"); code != 0 {
		t.Fatalf("apply: %d\n%s\n%s", code, out, errs)
	}
	markPending(t, dir, "endpoint.client[0]", "endpoint.client[1]")
	f.mu.Lock()
	delete(f.live, "endpoint.client[0]") // the agent never got to it
	f.mu.Unlock()
	code, out, errs := meta.cmd(t, dir, "", "plan", "-no-color")
	if code != 0 {
		t.Fatalf("plan: %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{
		"# endpoint.client[0] has been deleted", "(an interrupted apply was to make it, and the agent does not hold it: it was not made)",
		"# endpoint.client[1] will be imported", "(an interrupted apply asked the agent for it and did not record it",
		"# endpoint.client[0] will be created", "Plan: 1 to import, 1 to add, 0 to change, 0 to destroy.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "endpoint.client[1] will be created") {
		t.Errorf("the object the agent made is planned again:\n%s", out)
	}
	if strings.Contains(out, "no longer holds it") {
		t.Errorf("an object never made is said to be gone:\n%s", out)
	}
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color"); code != 0 {
		t.Fatalf("apply after the killed one: %d\n%s\n%s", code, out, errs)
	}
	if code, out, errs := meta.cmd(t, dir, "", "plan", "-detailed-exitcode", "-no-color"); code != 0 {
		t.Fatalf("plan after: %d\n%s\n%s", code, out, errs)
	}
	_, out, _ = meta.cmd(t, dir, "", "state", "show", "endpoint.client[1]")
	if !regexp.MustCompile(`status\s+= "established"`).MatchString(out) || !regexp.MustCompile(`qp_num\s+= \d+`).MatchString(out) || strings.Contains(out, "pending") {
		t.Errorf("the adopted object's state:\n%s", out)
	}
	if _, out, _ := meta.cmd(t, dir, "", "output", "qp1"); out == "null\n" || out == "" {
		t.Errorf("an output of the adopted object: %q", out)
	}
}

// A pending object no longer in the configuration is destroyed by the
// next apply, as any object the configuration dropped.
func TestPendingObjectOutOfTheConfigurationIsDestroyed(t *testing.T) {
	f, meta, dir := appliedThenPending(t, "endpoint.client[1]")
	writeConfig(t, dir, strings.Replace(planTestConfig, "count   = 2", "count   = 1", 1))
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color"); code != 0 || !strings.Contains(out, "  # endpoint.client[1] will be destroyed\n  # (made by an interrupted apply, and no longer in the configuration)") || strings.Contains(out, "deposed object") || !strings.Contains(out, "Destruction complete") {
		t.Fatalf("apply: %d\n%s\n%s", code, out, errs)
	}
	if _, ok := f.live["endpoint.client[1]"]; ok {
		t.Error("the pending object is left in the agent")
	}
	if code, out, errs := meta.cmd(t, dir, "", "plan", "-detailed-exitcode", "-no-color"); code != 0 {
		t.Errorf("plan after: %d\n%s\n%s", code, out, errs)
	}
}

// An object an interrupted apply asked for, which the agent reports
// failed (a first connect that timed out: the agent does not try again),
// is not adopted as made: the next plan destroys it and makes it anew,
// saying why.
func TestFailedPendingObjectIsMadeAgainNotAdopted(t *testing.T) {
	f, meta, dir := appliedThenPending(t, "endpoint.client[1]")
	f.mu.Lock()
	f.status = map[string]string{"endpoint.client[1]": "error"}
	oldToken := f.live["endpoint.client[1]"]
	f.mu.Unlock()
	code, out, errs := meta.cmd(t, dir, "", "plan", "-no-color", "-out=failed.plan")
	if code != 0 {
		t.Fatalf("plan: %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{
		"-/+ destroy and then create replacement\n",
		"  # endpoint.client[1] must be replaced\n  # (made by an interrupted apply, and the agent reports it failed (error):\n  # destroyed, then made again)\n-/+ endpoint \"client\" {\n",
		`      ~ id            = "endpoint.client[1]" -> (known after apply)`,
		"      + port          = 7471\n",
		"Plan: 1 to add, 0 to change, 1 to destroy.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	// One entry for the address, as Terraform shows a tainted object.
	if n := strings.Count(out, "# endpoint.client[1] "); n != 1 {
		t.Errorf("%d entries for endpoint.client[1]:\n%s", n, out)
	}
	if strings.Contains(out, "  + create\n") || strings.Contains(out, "  - destroy\n") {
		t.Errorf("the legend lists symbols the plan does not use:\n%s", out)
	}
	if strings.Contains(out, "will be imported") {
		t.Errorf("the failed object is adopted:\n%s", out)
	}
	f.mu.Lock()
	delete(f.status, "endpoint.client[1]") // the new one connects
	f.mu.Unlock()
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-no-color", "failed.plan"); code != 0 {
		t.Fatalf("apply: %d\n%s\n%s", code, out, errs)
	}
	if tok := f.live["endpoint.client[1]"]; tok == "" || tok == oldToken {
		t.Errorf("the endpoint was not made anew: token %q, was %q", tok, oldToken)
	}
	if code, out, errs := meta.cmd(t, dir, "", "plan", "-detailed-exitcode", "-no-color"); code != 0 {
		t.Errorf("plan after: %d\n%s\n%s", code, out, errs)
	}
}

// appliedThenPending applies planTestConfig on a memFabric, then marks
// addrs in the state as an apply killed while making them leaves them.
func appliedThenPending(t *testing.T, addrs ...string) (*memFabric, Meta, string) {
	t.Helper()
	f := newMemFabric()
	meta := withFabric(t, f)
	dir := planDir(t, planTestConfig)
	if code, _, errs := meta.cmd(t, dir, "", "apply", "-auto-approve"); code != 0 {
		t.Fatal(errs)
	}
	markPending(t, dir, addrs...)
	return f, meta, dir
}
