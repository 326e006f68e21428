package command

import (
	"strings"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/command/arguments"
)

// A refresh against an agent that restarted since the objects were made
// would empty the state: it says so, and refresh asks before it does.
// Terraform's refresh does not ask; this one does, deliberately: an
// rdmaform agent holds its objects in memory only and loses them all
// when it restarts, while "rdmaform apply" would make them again.
func TestRefreshOnARestartedAgentSaysWhatItDropsAndAsks(t *testing.T) {
	t.Setenv("RDMAFORM_INPUT", "")
	f := newMemFabric()
	meta := withFabric(t, f)
	dir := planDir(t, planTestConfig)
	if code, _, errs := meta.cmd(t, dir, "", "apply", "-auto-approve"); code != 0 {
		t.Fatalf("apply: %s", errs)
	}
	// The agent restarts: a new pid, started after the objects were made,
	// holding nothing.
	f.mu.Lock()
	f.identity.PID, f.identity.StartedAt = 4242, time.Now().Add(time.Second).UnixNano()
	f.live = map[string]string{}
	f.mu.Unlock()
	const says = "The agent (pid 4242) started at "
	const drops = "after these 4 objects were made (the last at "
	const names = "a refresh would remove them (and the outputs computed from them) from the state: endpoint.client[0], endpoint.client[1], listener.loop, protection_domain.rxe."
	loud := func(out string) bool {
		all := strings.Join(strings.Fields(out), " ")
		return strings.Contains(all, "Warning: The agent restarted: this refresh drops what it lost") && strings.Contains(all, says) &&
			strings.Contains(all, drops) && strings.Contains(all, names)
	}

	// plan -refresh-only changes nothing, and says it.
	if code, out, errs := meta.cmd(t, dir, "", "plan", "-refresh-only", "-no-color"); code != 0 || !loud(out+errs) {
		t.Errorf("plan -refresh-only: exit %d\n%s\n%s", code, out, errs)
	}
	// Without a terminal, refresh refuses.
	code, out, errs := meta.cmd(t, dir, "", "refresh", "-no-color")
	if code != 1 || !loud(out+errs) || !strings.Contains(errs, "Refresh not done: the agent restarted") || !strings.Contains(errs, "refresh -auto-approve") || stateObjects(t, dir) != 4 {
		t.Errorf("refresh without a terminal: exit %d, %d objects left\n%s\n%s", code, stateObjects(t, dir), out, errs)
	}
	// On a terminal it asks; "no" keeps the state.
	meta.StdinTerminal = stdinTTY
	code, out, errs = meta.cmd(t, dir, "no\n", "refresh", "-no-color")
	if code != 1 || !strings.Contains(out, "Do you really want to remove 4 objects from the state?") || !strings.Contains(out, "Refresh cancelled.") ||
		!strings.Contains(out, "# endpoint.client[0] has been deleted") || stateObjects(t, dir) != 4 {
		t.Errorf("refresh answered no: exit %d, %d objects left\n%s\n%s", code, stateObjects(t, dir), out, errs)
	}
	// apply -refresh-only asks its own question, once, after the warning.
	code, out, errs = meta.cmd(t, dir, "no\n", "apply", "-refresh-only", "-no-color")
	if code != 1 || !loud(out+errs) || strings.Contains(out, "Do you really want to remove") || stateObjects(t, dir) != 4 {
		t.Errorf("apply -refresh-only answered no: exit %d\n%s\n%s", code, out, errs)
	}
	// "yes" drops them.
	code, out, errs = meta.cmd(t, dir, "yes\n", "refresh", "-no-color")
	if code != 0 || stateObjects(t, dir) != 0 {
		t.Errorf("refresh answered yes: exit %d, %d objects left\n%s\n%s", code, stateObjects(t, dir), out, errs)
	}
}

// refresh -auto-approve is the answer: it warns and drops without asking,
// without a terminal.
func TestRefreshAutoApproveDropsWhatARestartedAgentLost(t *testing.T) {
	t.Setenv("RDMAFORM_INPUT", "")
	f := newMemFabric()
	meta := withFabric(t, f)
	dir := planDir(t, planTestConfig)
	if code, _, errs := meta.cmd(t, dir, "", "apply", "-auto-approve"); code != 0 {
		t.Fatalf("apply: %s", errs)
	}
	f.mu.Lock()
	f.identity.PID, f.identity.StartedAt = 4242, time.Now().Add(time.Second).UnixNano()
	delete(f.live, "endpoint.client[1]")
	f.mu.Unlock()
	code, out, errs := meta.cmd(t, dir, "", "refresh", "-auto-approve", "-no-color")
	if code != 0 || !strings.Contains(errs+out, "after this object was made (at ") || !strings.Contains(strings.Join(strings.Fields(errs+out), " "), "a refresh would remove it (and the outputs computed from it) from the state: endpoint.client[1].") || stateObjects(t, dir) != 3 {
		t.Errorf("refresh -auto-approve: exit %d, %d objects left\n%s\n%s", code, stateObjects(t, dir), out, errs)
	}
	for _, c := range []struct {
		args []string
		want bool
	}{{[]string{"-no-color"}, false}, {[]string{"-auto-approve"}, true}, {[]string{"--auto-approve=true"}, true}, {[]string{"-auto-approve=false"}, false}, {[]string{"--", "-auto-approve"}, false}} {
		if a, _ := arguments.ParseRefresh(c.args); a.AutoApproveImplied == c.want || !a.AutoApprove {
			t.Errorf("refresh %q: auto-approve given %v, want %v (approved: %v)", c.args, !a.AutoApproveImplied, c.want, a.AutoApprove)
		}
	}
}

// An agent that merely lost an object (not restarted: it is older than
// the object) is refreshed as before, without a question.
func TestRefreshOfALostObjectDoesNotAsk(t *testing.T) {
	t.Setenv("RDMAFORM_INPUT", "")
	f := newMemFabric()
	meta := withFabric(t, f)
	dir := planDir(t, planTestConfig)
	f.identity.PID, f.identity.StartedAt = 4242, time.Now().Add(-time.Hour).UnixNano()
	if code, _, errs := meta.cmd(t, dir, "", "apply", "-auto-approve"); code != 0 {
		t.Fatalf("apply: %s", errs)
	}
	f.mu.Lock()
	delete(f.live, "endpoint.client[1]")
	f.mu.Unlock()
	if code, out, errs := meta.cmd(t, dir, "", "refresh", "-no-color"); code != 0 || strings.Contains(out+errs, "Warning: The agent restarted") || stateObjects(t, dir) != 3 {
		t.Errorf("refresh: exit %d\n%s\n%s", code, out, errs)
	}
}
