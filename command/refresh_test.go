package command

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/apply"
	"github.com/rdmaform/rdmaform/state"
)

// stateObjects is how many objects dir's local state records.
func stateObjects(t *testing.T, dir string) int {
	t.Helper()
	m := state.NewFilesystem(state.LocalOptions{Path: filepath.Join(dir, "rdmaform.rdmastate")})
	defer m.Close()
	if err := m.RefreshState(); err != nil {
		t.Fatal(err)
	}
	return len(m.State().Objects)
}

func TestRefreshOnlyRecordsDriftAndChangesNothing(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	dir := planDir(t, planTestConfig)
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color"); code != 0 {
		t.Fatalf("apply: %d\n%s\n%s", code, out, errs)
	}
	code, out, _ := meta.cmd(t, dir, "", "plan", "-refresh-only", "-detailed-exitcode", "-no-color")
	if code != 0 || !strings.Contains(out, "No changes. Your fabric still matches the configuration.") {
		t.Fatalf("refresh-only plan without drift: %d\n%s", code, out)
	}

	delete(f.live, "endpoint.client[0]") // the agent lost it
	code, out, _ = meta.cmd(t, dir, "", "plan", "-refresh-only", "-detailed-exitcode", "-no-color")
	if code != 2 || !strings.Contains(out, "# endpoint.client[0] has been deleted") ||
		!strings.Contains(out, "This is a refresh-only plan, so rdmaform will not take any actions") ||
		strings.Contains(out, "will be created") || strings.Contains(out, "Plan:") {
		t.Fatalf("refresh-only plan with drift: %d\n%s", code, out)
	}

	meta.StdinTerminal = stdinTTY
	code, out, _ = meta.cmd(t, dir, "no\n", "apply", "-refresh-only", "-no-color")
	if code != 1 || !strings.Contains(out, "Would you like to update the rdmaform state to reflect these detected changes?") || stateObjects(t, dir) != 4 {
		t.Fatalf("refresh-only apply answered no: %d\n%s", code, out)
	}
	code, out, errs := meta.cmd(t, dir, "yes\n", "apply", "-refresh-only", "-no-color")
	if code != 0 || !strings.Contains(out, "Apply complete! Resources: 0 added, 0 changed, 0 destroyed.") {
		t.Fatalf("refresh-only apply: %d\n%s\n%s", code, out, errs)
	}
	if n := stateObjects(t, dir); n != 3 {
		t.Fatalf("the state records %d objects after the refresh, want 3 (endpoint.client[0] dropped)", n)
	}
	if len(f.live) != 3 {
		t.Fatalf("a refresh-only apply changed the fabric: %v", f.live)
	}
	code, out, _ = meta.cmd(t, dir, "", "plan", "-detailed-exitcode", "-no-color")
	if code != 2 || !strings.Contains(out, "# endpoint.client[0] will be created") || strings.Contains(out, "has been deleted") {
		t.Fatalf("plan after the refresh: %d\n%s", code, out)
	}
}

func TestRefreshCommandIsApplyRefreshOnly(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	dir := planDir(t, planTestConfig)
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve"); code != 0 {
		t.Fatalf("apply: %d\n%s\n%s", code, out, errs)
	}
	delete(f.live, "endpoint.client[1]")
	code, out, errs := meta.cmd(t, dir, "", "refresh", "-no-color")
	if code != 0 || !strings.Contains(out, "# endpoint.client[1] has been deleted") || stateObjects(t, dir) != 3 || len(f.live) != 3 {
		t.Fatalf("refresh: %d\n%s\n%s", code, out, errs)
	}
	if code, _, errs := meta.cmd(t, dir, "", "refresh", "-help"); code != 0 || !strings.Contains(errs, "apply -refresh-only -auto-approve") {
		t.Fatalf("refresh -help: %d\n%s", code, errs)
	}

	// A saved plan is applied as it was made, never as a refresh.
	if code, out, errs := meta.cmd(t, dir, "", "plan", "-out=heal.plan"); code != 0 {
		t.Fatalf("plan -out: %d\n%s\n%s", code, out, errs)
	}
	if code, _, errs := meta.cmd(t, dir, "", "refresh", "heal.plan"); code != 1 || !strings.Contains(errs, "cannot be applied with -refresh-only") || len(f.live) != 3 {
		t.Fatalf("refresh of a saved plan: %d (live %v)\n%s", code, f.live, errs)
	}
	if code, _, errs := meta.cmd(t, dir, "", "apply", "-destroy", "heal.plan"); code != 1 || !strings.Contains(errs, "cannot be applied with -destroy") || len(f.live) != 3 {
		t.Fatalf("apply -destroy of a saved plan: %d\n%s", code, errs)
	}
}

func TestRefreshOnlyRefusesContradictions(t *testing.T) {
	meta := withFabric(t, newMemFabric())
	dir := planDir(t, planTestConfig)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"plan", "-refresh-only", "-destroy"}, "The -destroy option cannot be used together with -refresh-only"},
		{[]string{"destroy", "-refresh-only", "-auto-approve"}, "The -destroy option cannot be used together with -refresh-only"},
		{[]string{"plan", "-refresh-only", "-refresh=false"}, "It doesn't make sense to use -refresh-only at the same time as -refresh=false"},
		{[]string{"apply", "-refresh-only", "-replace=endpoint.client[0]", "-auto-approve"}, "The -replace option cannot be used together with -refresh-only"},
	} {
		code, _, errs := meta.cmd(t, dir, "", c.args...)
		if code != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%s: %d %q, want exit 1 and %q", strings.Join(c.args, " "), code, errs, c.want)
		}
	}
}

func TestApplyWithInputFalseNeverAsks(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	meta.StdinTerminal = stdinTTY
	dir := planDir(t, planTestConfig)
	code, out, errs := meta.cmd(t, dir, "yes\n", "apply", "-input=false")
	if code != 1 || !strings.Contains(errs, "No confirmation with -input=false") || strings.Contains(out, "Enter a value") || len(f.live) != 0 {
		t.Fatalf("apply -input=false: %d\n%s\n%s", code, out, errs)
	}
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-input=false", "-auto-approve"); code != 0 || len(f.live) != 4 {
		t.Fatalf("apply -input=false -auto-approve: %d\n%s\n%s", code, out, errs)
	}
	if code, out, errs := meta.cmd(t, dir, "", "plan", "-input=false", "-detailed-exitcode"); code != 0 {
		t.Fatalf("plan -input=false: %d\n%s\n%s", code, out, errs)
	}
}

func TestApplyDestroyIsDestroy(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	meta.StdinTerminal = stdinTTY
	dir := planDir(t, planTestConfig)
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve"); code != 0 {
		t.Fatalf("apply: %d\n%s\n%s", code, out, errs)
	}
	code, out, _ := meta.cmd(t, dir, "no\n", "apply", "-destroy")
	if code != 1 || !strings.Contains(out, "Do you really want to destroy all resources?") || len(f.live) != 4 {
		t.Fatalf("apply -destroy answered no: %d\n%s", code, out)
	}
	code, out, errs := meta.cmd(t, dir, "", "apply", "-destroy", "-auto-approve", "-no-color")
	if code != 0 || !strings.Contains(out, "Destroy complete! Resources: 4 destroyed.") || len(f.live) != 0 || stateObjects(t, dir) != 0 {
		t.Fatalf("apply -destroy: %d\n%s\n%s", code, out, errs)
	}
}

func TestCompactWarnings(t *testing.T) {
	meta := withFabric(t, newMemFabric())
	dir := planDir(t, planTestConfig)
	code, _, errs := meta.cmd(t, dir, "", "plan", "-replace=endpoint.nothing[0]", "-compact-warnings", "-no-color")
	if code != 0 || !strings.Contains(errs, "Warnings:\n\n- Replace target not found\n") ||
		!strings.Contains(errs, "To see the full warning notes, run rdmaform without -compact-warnings.") {
		t.Fatalf("plan -compact-warnings: %d\n%s", code, errs)
	}
	_, _, full := meta.cmd(t, dir, "", "plan", "-replace=endpoint.nothing[0]", "-no-color")
	if !strings.Contains(full, "Warning: Replace target not found") || strings.Contains(full, "Warnings:") {
		t.Fatalf("plan without -compact-warnings: %s", full)
	}
}

func TestInputAndCLIArgsFromTheEnvironment(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	meta.StdinTerminal = stdinTTY
	dir := planDir(t, planTestConfig)
	t.Setenv("RDMAFORM_INPUT", "0")
	code, out, errs := meta.cmd(t, dir, "yes\n", "apply")
	if code != 1 || !strings.Contains(errs, "No confirmation with -input=false") || len(f.live) != 0 {
		t.Fatalf("apply with RDMAFORM_INPUT=0: %d\n%s\n%s", code, out, errs)
	}
	t.Setenv("RDMAFORM_INPUT", "")
	t.Setenv("RDMAFORM_CLI_ARGS", "-no-color")
	t.Setenv("RDMAFORM_CLI_ARGS_apply", `-auto-approve "-var-file=no such file.rdmavars"`)
	code, _, errs = meta.cmd(t, dir, "", "apply")
	if code != 1 || !strings.Contains(errs, "no such file.rdmavars") {
		t.Fatalf("apply with RDMAFORM_CLI_ARGS_apply naming a missing var file: %d\n%s", code, errs)
	}
	t.Setenv("RDMAFORM_CLI_ARGS_apply", "-auto-approve")
	if code, out, errs := meta.cmd(t, dir, "", "apply"); code != 0 || len(f.live) != 4 {
		t.Fatalf("apply with RDMAFORM_CLI_ARGS: %d\n%q\n%s", code, out, errs)
	}
	t.Setenv("RDMAFORM_CLI_ARGS_apply", "")
	if code, out, errs := meta.cmd(t, dir, "", "state", "list"); code != 0 || !strings.Contains(out, "listener.loop") {
		t.Fatalf("state list with RDMAFORM_CLI_ARGS=-no-color (after the subcommand): %d\n%s\n%s", code, out, errs)
	}
	// A subcommand's variable, as Terraform's TF_CLI_ARGS_state_list; the
	// command's alone is not the subcommand's.
	t.Setenv("RDMAFORM_CLI_ARGS_state_list", "-id=nothing-has-this-id")
	if code, out, errs := meta.cmd(t, dir, "", "state", "list"); code != 0 || out != "" {
		t.Fatalf("state list with RDMAFORM_CLI_ARGS_state_list=-id=...: %d\n%q\n%s", code, out, errs)
	}
	t.Setenv("RDMAFORM_CLI_ARGS_state_list", "")
	t.Setenv("RDMAFORM_CLI_ARGS_state", "-dry-run")
	if code, out, errs := meta.cmd(t, dir, "", "state", "list"); code != 0 || !strings.Contains(out, "listener.loop") {
		t.Fatalf("state list with RDMAFORM_CLI_ARGS_state set: %d\n%s\n%s", code, out, errs)
	}
	t.Setenv("RDMAFORM_CLI_ARGS_state", "")
	t.Setenv("RDMAFORM_CLI_ARGS", `-no-color "-target=`)
	if code, _, errs := meta.cmd(t, dir, "", "plan"); code != 1 || !strings.Contains(errs, "cannot split RDMAFORM_CLI_ARGS") {
		t.Fatalf("plan with an unterminated quote in RDMAFORM_CLI_ARGS: %d\n%s", code, errs)
	}
}

func TestUnknownCommandSuggestsTheNearest(t *testing.T) {
	dir := planDir(t, planTestConfig)
	if code, _, errs := stateCmd(t, dir, "", "aply"); code != 1 || !strings.Contains(errs, `rdmaform has no command named "aply". Did you mean "apply"?`) {
		t.Fatalf("aply: %d\n%s", code, errs)
	}
}

// An endpoint the agent reconnected is on a new QP: the refresh reads its
// facts, the plan shows it changed and re-evaluates the outputs using its
// qp_num, apply records the new facts (without a question when nothing
// else changes), and a refresh drops the outputs of objects gone.
func TestReconnectedEndpointsFactsAreRefreshed(t *testing.T) {
	f, meta, dir := appliedWithQPOutput(t)
	f.reconnect("endpoint.client[0]")
	code, out, errs := meta.cmd(t, dir, "", "plan", "-no-color", "-detailed-exitcode")
	for _, want := range []string{"# endpoint.client[0] has changed", "~ qp_num", "-> 201", "Changes to Outputs:", "~ qp", "-> 201"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s%s", want, out, errs)
		}
	}
	if code != 2 {
		t.Errorf("plan exit %d, want 2 (an output changes)", code)
	}
	_, out, _ = planDocument(t, meta, dir)
	if !strings.Contains(out, `"resource_drift":[{"address":"endpoint.client[0]"`) || !strings.Contains(out, `"actions":["update"]`) || !strings.Contains(out, `"qp_num":201`) {
		t.Errorf("plan -json lacks the drift as an update:\n%s", out)
	}
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color"); code != 0 {
		t.Fatalf("apply: %d\n%s%s", code, out, errs)
	}
	if _, out, _ := meta.cmd(t, dir, "", "output", "qp"); strings.TrimSpace(out) != "201" {
		t.Errorf("output qp = %q after apply, want 201", out)
	}
	if code, out, errs := meta.cmd(t, dir, "", "plan", "-no-color", "-detailed-exitcode"); code != 0 || strings.Contains(out, "has changed") {
		t.Errorf("plan after recording the new facts: exit %d\n%s%s", code, out, errs)
	}

	// Nothing uses client[1]'s facts: its reconnect is no change, but
	// apply records it, asking nothing.
	f.reconnect("endpoint.client[1]")
	code, out, errs = meta.cmd(t, dir, "", "plan", "-no-color", "-detailed-exitcode")
	if code != 0 || !strings.Contains(out, "# endpoint.client[1] has changed") || !strings.Contains(out, "No changes.") || !strings.Contains(out, "records them in the state") {
		t.Errorf("plan: exit %d, want 0 with the change shown\n%s%s", code, out, errs)
	}
	meta.StdinTerminal = stdinTTY
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-no-color"); code != 0 || strings.Contains(out, "Enter a value") || !strings.Contains(out, "Apply complete! Resources: 0 added, 0 changed, 0 destroyed.") {
		t.Fatalf("apply: %d\n%s%s", code, out, errs)
	}
	if _, out, _ := meta.cmd(t, dir, "", "state", "show", "endpoint.client[1]"); !strings.Contains(out, "qp_num") || !strings.Contains(out, "201") {
		t.Errorf("state show after apply:\n%s", out)
	}

	// The agent loses client[0]: refresh drops it, and the output made
	// from it, which can no longer be computed.
	f.Delete(context.Background(), apply.Handle{Name: "endpoint.client[0]"}, "")
	if code, out, errs := meta.cmd(t, dir, "", "refresh", "-no-color"); code != 0 {
		t.Fatalf("refresh: %d\n%s%s", code, out, errs)
	}
	if code, out, errs := meta.cmd(t, dir, "", "output", "qp"); code == 0 {
		t.Errorf("output qp after refresh: %d %q %q, want it gone", code, out, errs)
	}
	if _, out, _ := meta.cmd(t, dir, "", "output", "port"); strings.TrimSpace(out) != "7471" {
		t.Errorf("output port = %q after refresh, want 7471 (listener.loop is still held)", out)
	}
	// The listener goes too: its port output, made from its configured
	// attribute, goes with it.
	f.Delete(context.Background(), apply.Handle{Name: "listener.loop"}, "")
	if code, out, errs := meta.cmd(t, dir, "", "refresh", "-no-color"); code != 0 {
		t.Fatalf("refresh: %d\n%s%s", code, out, errs)
	}
	if code, out, _ := meta.cmd(t, dir, "", "output", "port"); code == 0 {
		t.Errorf("output port after listener.loop went: %q, want it gone", out)
	}
}

// The refresh records a status the agent reports changed (an endpoint
// reconnecting): plan shows it, a check on the status warns, refresh
// records it, and it changes back once the endpoint is up again.
func TestRefreshRecordsALiveStatus(t *testing.T) {
	f := newMemFabric()
	f.status = map[string]string{}
	meta := withFabric(t, f)
	dir := planDir(t, planTestConfig+`
check "up" {
  assert {
    condition     = endpoint.client[0].status == "established"
    error_message = "endpoint.client[0] is ${endpoint.client[0].status}"
  }
}
`)
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color"); code != 0 {
		t.Fatalf("apply: %d\n%s%s", code, out, errs)
	}
	f.mu.Lock()
	f.status["endpoint.client[0]"] = "reconnecting"
	f.mu.Unlock()
	code, out, errs := meta.cmd(t, dir, "", "plan", "-no-color", "-detailed-exitcode")
	for _, want := range []string{"# endpoint.client[0] has changed", "# (the agent reports it reconnecting: its connection ended, and with it its QP and port)", `~ status`, `"established" -> "reconnecting"`, "No changes."} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	if code != 0 || !strings.Contains(errs, "endpoint.client[0] is reconnecting") {
		t.Errorf("plan: exit %d (want 0), check warning in:\n%s", code, errs)
	}
	if code, out, errs := meta.cmd(t, dir, "", "refresh", "-no-color"); code != 0 {
		t.Fatalf("refresh: %d\n%s%s", code, out, errs)
	}
	if _, out, _ := meta.cmd(t, dir, "", "state", "show", "endpoint.client[0]"); !regexp.MustCompile(`\n    status += "reconnecting"`).MatchString(out) {
		t.Errorf("state show after refresh:\n%s", out)
	}
	f.mu.Lock()
	delete(f.status, "endpoint.client[0]")
	f.mu.Unlock()
	if _, out, _ := meta.cmd(t, dir, "", "plan", "-no-color"); !strings.Contains(out, `"reconnecting" -> "established"`) {
		t.Errorf("plan once up again:\n%s", out)
	}
}

// A refresh-only plan reads every object's facts from the agent, as
// Terraform's refresh reads every object: a state whose QP number was
// edited (or restored from an old backup) gets the live one back, and the
// output made from it follows; a normal plan does not read them.
func TestRefreshOnlyReadsEveryObjectsFacts(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	dir := planDir(t, planTestConfig+"\noutput \"qp0\" {\n  value = endpoint.client[0].qp_num\n}\n")
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color"); code != 0 {
		t.Fatalf("apply: %d\n%s%s", code, out, errs)
	}
	_, live, _ := meta.cmd(t, dir, "", "output", "qp0")
	live = strings.TrimSpace(live)
	path := filepath.Join(dir, "rdmaform.rdmastate")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The attribute, not the facts the state keeps beside it.
	loc := regexp.MustCompile(`"qp_num": ?` + live + `\b`).FindStringIndex(string(raw))
	if loc == nil {
		t.Fatalf("no qp_num %s in the state:\n%s", live, raw)
	}
	edited := string(raw[:loc[0]]) + `"qp_num": 999` + string(raw[loc[1]:])
	if edited == string(raw) {
		t.Fatalf("no qp_num %s in the state:\n%s", live, raw)
	}
	if err := os.WriteFile(path, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := meta.cmd(t, dir, "", "plan", "-refresh-only", "-no-color")
	if code != 0 || !strings.Contains(out, "# endpoint.client[0] has changed") || !strings.Contains(out, "999 -> "+live) {
		t.Fatalf("plan -refresh-only: %d\n%s%s", code, out, errs)
	}
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-refresh-only", "-auto-approve", "-no-color"); code != 0 {
		t.Fatalf("apply -refresh-only: %d\n%s%s", code, out, errs)
	}
	if _, out, _ := meta.cmd(t, dir, "", "output", "qp0"); strings.TrimSpace(out) != live {
		t.Fatalf("output qp0 after the refresh: %q, want %s", out, live)
	}
	if code, out, errs := meta.cmd(t, dir, "", "plan", "-refresh-only", "-no-color", "-detailed-exitcode"); code != 0 || !strings.Contains(out, "No changes") {
		t.Fatalf("plan -refresh-only after: %d\n%s%s", code, out, errs)
	}
}

// A compact warning names where it is, as FILE:LINE:COL.
func TestCompactWarningsGivePositions(t *testing.T) {
	meta := withFabric(t, newMemFabric())
	dir := planDir(t, planTestConfig+`
check "always" {
  assert {
    condition     = 1 == 2
    error_message = "never holds"
  }
}
`)
	code, _, errs := meta.cmd(t, dir, "", "plan", "-compact-warnings", "-no-color")
	line := strings.Count(planTestConfig, "\n") + 4
	want := fmt.Sprintf("- Check block assertion failed\n  on main.rdma.hcl:%d:21\n", line)
	if code != 0 || !strings.Contains(errs, want) {
		t.Fatalf("plan -compact-warnings: %d, want %q in\n%s", code, want, errs)
	}
}

// An endpoint between connections (its peer went, it reconnects) holds no
// QP and no local port: the refresh records that, rather than the last
// connection's, and what was made from them follows.
func TestReconnectingEndpointHasNoQP(t *testing.T) {
	f, meta, dir := appliedWithQPOutput(t)
	if _, out, _ := meta.cmd(t, dir, "", "output", "qp"); strings.TrimSpace(out) == "" || strings.TrimSpace(out) == "null" {
		t.Fatalf("output qp = %q after apply", out)
	}
	f.mu.Lock()
	f.status = map[string]string{"endpoint.client[0]": "reconnecting"}
	f.mu.Unlock()
	code, out, errs := meta.cmd(t, dir, "", "plan", "-no-color", "-detailed-exitcode")
	for _, want := range []string{"# endpoint.client[0] has changed", "# (the agent reports it reconnecting: its connection ended, and with it its QP and port)", "qp_num = ", "-> null", `~ status`, `-> "reconnecting"`, "Changes to Outputs:"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s%s", want, out, errs)
		}
	}
	if code != 2 {
		t.Errorf("plan exit %d, want 2 (the output changes)", code)
	}
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-refresh-only", "-auto-approve", "-no-color"); code != 0 {
		t.Fatalf("apply -refresh-only: %d\n%s%s", code, out, errs)
	}
	if _, out, _ := meta.cmd(t, dir, "", "state", "show", "endpoint.client[0]"); strings.Contains(out, "qp_num") && !strings.Contains(out, "qp_num          = null") {
		t.Errorf("the state keeps a QP for an endpoint between connections:\n%s", out)
	}
}

// appliedWithQPOutput applies planTestConfig with an output "qp" made from
// endpoint.client[0]'s qp_num, on a fabric of its own.
func appliedWithQPOutput(t *testing.T) (*memFabric, Meta, string) {
	t.Helper()
	f := newMemFabric()
	meta := withFabric(t, f)
	dir := planDir(t, planTestConfig+`
output "qp" {
  value = endpoint.client[0].qp_num
}
`)
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color"); code != 0 {
		t.Fatalf("apply: %d\n%s%s", code, out, errs)
	}
	return f, meta, dir
}

// A protection domain's device is its configuration's: a refresh that
// reads every object's facts keeps it whatever the agent reports (an agent
// reported none for a protection domain, and the refresh recorded null, so
// that the next apply replaced the domain and everything in it).
func TestRefreshKeepsAProtectionDomainsDevice(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	dir := planDir(t, planTestConfig)
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color"); code != 0 {
		t.Fatalf("apply: %d\n%s%s", code, out, errs)
	}
	f.mu.Lock()
	pd := f.made["protection_domain.rxe"]
	pd.Device = ""
	f.made["protection_domain.rxe"] = pd
	f.mu.Unlock()
	if code, out, errs := meta.cmd(t, dir, "", "refresh", "-no-color"); code != 0 || strings.Contains(out, "protection_domain.rxe has changed") {
		t.Fatalf("refresh: %d\n%s%s", code, out, errs)
	}
	if _, out, _ := meta.cmd(t, dir, "", "state", "show", "protection_domain.rxe"); !strings.Contains(out, `device = "rxe0"`) {
		t.Errorf("state show after refresh:\n%s", out)
	}
	if code, out, errs := meta.cmd(t, dir, "", "plan", "-no-color", "-detailed-exitcode"); code != 0 {
		t.Fatalf("plan after refresh: %d, want 0\n%s%s", code, out, errs)
	}
}

// A refresh before anything is made records no output made from an object
// that does not exist: the plan showed it known after apply.
func TestRefreshRecordsNoOutputOfAnObjectNotMade(t *testing.T) {
	meta := withFabric(t, newMemFabric())
	dir := planDir(t, planTestConfig)
	code, out, errs := meta.cmd(t, dir, "", "refresh", "-no-color")
	if code != 0 || !strings.Contains(out, "+ port = (known after apply)") || strings.Contains(errs, "Outputs not recorded") {
		t.Fatalf("refresh: %d\n%s%s", code, out, errs)
	}
	if code, out, errs := meta.cmd(t, dir, "", "output", "port"); code == 0 || strings.Contains(out, "7471") {
		t.Fatalf("output port after the refresh: %d\n%s%s", code, out, errs)
	}
}
