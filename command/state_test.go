package command

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// stateCmd runs rdmaform with args in dir and returns exit code, stdout
// and stderr.
func stateCmd(t *testing.T, dir, stdin string, args ...string) (int, string, string) {
	t.Helper()
	return Meta{}.cmd(t, dir, stdin, args...)
}

// cmd is stateCmd with m's seams (its streams are the test's).
func (m Meta) cmd(t *testing.T, dir, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"-chdir=" + dir}, args...), m.streams(strings.NewReader(stdin), &out, &errb))
	// run changes directory; every test restores it with t.Chdir.
	return code, out.String(), errb.String()
}

// streams returns m with the given standard streams.
func (m Meta) streams(in io.Reader, out, err io.Writer) Meta {
	m.In, m.Out, m.Err = in, out, err
	return m
}

// stateDir returns a directory with a configuration (no backend block:
// the local default) and the given state file content, and makes the test
// return to the current directory afterwards.
func stateDir(t *testing.T, stateJSON string) string {
	t.Helper()
	t.Chdir(".")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "main.rdma.hcl"), []byte("rdmaform {}\n"), 0o644)
	if stateJSON != "" {
		os.WriteFile(filepath.Join(dir, "rdmaform.rdmastate"), []byte(stateJSON), 0o600)
	}
	return dir
}

const testLineage = "8a3c0e2e-3f0c-4b7e-9a57-3c1a3f9d2c11"

const testState = `{"version":1,"lineage":"` + testLineage + `","serial":3,"rdmaform_version":"0.1.0",
 "objects":[
  {"address":"endpoint.client[3]","type":"endpoint","schema_version":1,
   "attributes":{"device":"mlx5_0","port":1,"peers":["x","y"],"tags":{"a":"b"}},"dependencies":["listener.server"],
   "facts":{"agent_handle":"h-1","qp_num":123,"qp_type":"RC","local_address":"10.0.0.1","local_port":4791,"status":"connected","created_at":"2026-01-02T03:04:05Z"}},
  {"address":"endpoint.client[10]","type":"endpoint","schema_version":1,"attributes":{"device":"mlx5_1"},"facts":{}},
  {"address":"listener.server","type":"listener","schema_version":0,"attributes":{"port":4791},"facts":{}},
  {"address":"endpoint.fanout[\"b\"]","type":"endpoint","schema_version":1,"attributes":{},"facts":{}}],
 "outputs":{"addr":{"value":"10.0.0.1","type":"string"},"n":{"value":3},"secret":{"value":{"a":[1,2]},"sensitive":true}}}`

// plannableState is testState with attributes that fit the schemas (as
// state push requires: testState's show how any attributes render).
var plannableState = strings.NewReplacer(
	`"schema_version":1`, `"schema_version":0`,
	`{"device":"mlx5_0","port":1,"peers":["x","y"],"tags":{"a":"b"}}`, `{"address":"10.0.0.2","port":4791}`,
	`{"device":"mlx5_1"}`, `{"address":"10.0.0.2"}`,
).Replace(testState)

func TestStateListAndShow(t *testing.T) {
	dir := stateDir(t, testState)
	code, out, errs := stateCmd(t, dir, "", "state", "list")
	want := "endpoint.client[3]\nendpoint.client[10]\nendpoint.fanout[\"b\"]\nlistener.server\n"
	if code != 0 || out != want {
		t.Fatalf("state list: %d %q %s", code, out, errs)
	}
	_, out, _ = stateCmd(t, dir, "", "state", "list", "endpoint.client")
	if out != "endpoint.client[3]\nendpoint.client[10]\n" {
		t.Fatalf("state list endpoint.client: %q", out)
	}
	code, out, errs = stateCmd(t, dir, "", "state", "show", "endpoint.client[3]")
	want = `# endpoint.client[3]:
endpoint "client" {
    device = "mlx5_0"
    peers  = [
        "x",
        "y",
    ]
    port   = 1
    tags   = {
        a = "b"
    }

    facts {
        agent_handle  = "h-1"
        qp_num        = 123
        qp_type       = "RC"
        local_address = "10.0.0.1"
        local_port    = 4791
        status        = "connected"
        created_at    = "2026-01-02T03:04:05Z"
    }
}
`
	if code != 0 || out != want {
		t.Fatalf("state show: %d\n%s\nwant\n%s%s", code, out, want, errs)
	}
	code, _, errs = stateCmd(t, dir, "", "state", "show", "endpoint.nope")
	if code != 1 || !strings.Contains(errs, "No instance found for the given address") {
		t.Fatalf("state show of a missing address: %d %s", code, errs)
	}
	code, _, errs = stateCmd(t, dir, "", "state", "show", "bogus")
	if code != 1 || !strings.Contains(errs, "Invalid address") {
		t.Fatalf("state show of a bad address: %d %s", code, errs)
	}
}

func TestStateRmMvPullPush(t *testing.T) {
	dir := stateDir(t, plannableState)
	code, out, errs := stateCmd(t, dir, "", "state", "rm", "endpoint.client")
	if code != 0 || out != "Removed endpoint.client[3]\nRemoved endpoint.client[10]\nSuccessfully removed 2 resource instance(s).\n" {
		t.Fatalf("state rm: %d %q %s", code, out, errs)
	}
	code, out, errs = stateCmd(t, dir, "", "state", "mv", "listener.server", "listener.main")
	if code != 0 || out != "Move \"listener.server\" to \"listener.main\"\nSuccessfully moved 1 object(s).\n" {
		t.Fatalf("state mv: %d %q %s", code, out, errs)
	}
	code, _, errs = stateCmd(t, dir, "", "state", "mv", "listener.main", "endpoint.main")
	if code != 1 || !strings.Contains(errs, "cannot change kind") {
		t.Fatalf("state mv across kinds: %d %s", code, errs)
	}
	code, _, errs = stateCmd(t, dir, "", "state", "rm", "endpoint.gone")
	if code != 1 || !strings.Contains(errs, "No matching objects found for endpoint.gone") {
		t.Fatalf("state rm of nothing: %d %s", code, errs)
	}
	_, out, _ = stateCmd(t, dir, "", "state", "list")
	if out != "endpoint.fanout[\"b\"]\nlistener.main\n" {
		t.Fatalf("after rm and mv: %q", out)
	}
	code, pulled, _ := stateCmd(t, dir, "", "state", "pull")
	if code != 0 || !strings.Contains(pulled, `"serial": 5`) || !strings.Contains(pulled, testLineage) {
		t.Fatalf("state pull: %d %s", code, pulled)
	}
	backup, _ := os.ReadFile(filepath.Join(dir, "rdmaform.rdmastate.backup"))
	if !strings.Contains(string(backup), `"serial": 4`) {
		t.Fatalf("backup is not the previous version:\n%s", backup)
	}

	// push: the pulled state with one more object, older serial refused.
	older := strings.Replace(pulled, `"serial": 5`, `"serial": 4`, 1)
	os.WriteFile(filepath.Join(dir, "older.json"), []byte(older), 0o600)
	before, _ := os.ReadFile(filepath.Join(dir, "rdmaform.rdmastate"))
	code, _, errs = stateCmd(t, dir, "", "state", "push", "older.json")
	if code != 1 || !strings.Contains(errs, "serial 4 over the newer current state\nwith serial 5") {
		t.Fatalf("push of an older serial: %d %s", code, errs)
	}
	other := strings.Replace(pulled, testLineage, "11111111-2222-3333-4444-555555555555", 1)
	code, _, errs = stateCmd(t, dir, other, "state", "push", "-")
	if code != 1 || !strings.Contains(errs, "different lineage") || !strings.Contains(errs, "standard input") {
		t.Fatalf("push of another lineage: %d %s", code, errs)
	}
	same := strings.Replace(pulled, `"listener.main"`, `"listener.other"`, 1)
	code, _, errs = stateCmd(t, dir, same, "state", "push", "-")
	if code != 1 || !strings.Contains(errs, "different current state\nwith the same serial") {
		t.Fatalf("push of a different state with the same serial: %d %s", code, errs)
	}
	code, _, errs = stateCmd(t, dir, "{\"version\":1", "state", "push", "-")
	if code != 1 || !strings.Contains(errs, "standard input: the file is truncated") {
		t.Fatalf("push of a truncated file: %d %s", code, errs)
	}
	after, _ := os.ReadFile(filepath.Join(dir, "rdmaform.rdmastate"))
	if !bytes.Equal(before, after) {
		t.Fatal("a refused push changed the state file")
	}
	code, _, errs = stateCmd(t, dir, other, "state", "push", "-force", "-")
	if code != 0 {
		t.Fatalf("push -force: %d %s", code, errs)
	}
	_, pulled2, _ := stateCmd(t, dir, "", "state", "pull")
	if !strings.Contains(pulled2, "11111111-2222-3333-4444-555555555555") || !strings.Contains(pulled2, `"serial": 6`) {
		t.Fatalf("after push -force:\n%s", pulled2)
	}
}

func TestStateCommandsBadStateFile(t *testing.T) {
	for name, content := range map[string]string{
		"empty":     "",
		"truncated": testState[:100],
		"newer":     `{"version":9,"rdmaform_version":"3.0.0","lineage":"` + testLineage + `"}`,
		"duplicate": strings.Replace(testState, `"endpoint.client[10]"`, `"endpoint.client[3]"`, 1),
	} {
		t.Run(name, func(t *testing.T) {
			dir := stateDir(t, "")
			p := filepath.Join(dir, "rdmaform.rdmastate")
			os.WriteFile(p, []byte(content), 0o600)
			for _, args := range [][]string{{"state", "list"}, {"state", "rm", "listener.server"}, {"show"}, {"output"}, {"state", "push", "-force", "x.json"}} {
				os.WriteFile(filepath.Join(dir, "x.json"), []byte(plannableState), 0o600)
				code, _, errs := stateCmd(t, dir, "", args...)
				if code != 1 || !strings.Contains(errs, "Failed to load state") || !strings.Contains(errs, "rdmaform.rdmastate") {
					t.Fatalf("%v on a %s state: %d %s", args, name, code, errs)
				}
			}
			got, _ := os.ReadFile(p)
			if string(got) != content {
				t.Fatalf("the bad state file was changed")
			}
		})
	}
}

func TestStateRmLockTimeoutNamesHolder(t *testing.T) {
	dir := stateDir(t, testState)
	holdStateLock(t, dir)
	code, _, errs := stateCmd(t, dir, "", "state", "rm", "-lock-timeout=300ms", "listener.server")
	if code != 1 || !strings.Contains(errs, "Error acquiring the state lock") || !strings.Contains(errs, "timeout after 300ms") || !strings.Contains(errs, "Operation: OperationTypeApply") {
		t.Fatalf("state rm against a held lock: %d %s", code, errs)
	}
	code, _, errs = stateCmd(t, dir, "", "state", "rm", "-lock=false", "listener.server")
	if code != 0 {
		t.Fatalf("state rm -lock=false: %d %s", code, errs)
	}
}

func TestStateMvOfABlockToAnInstanceSaysWhy(t *testing.T) {
	dir := stateDir(t, testState)
	code, _, errs := stateCmd(t, dir, "", "state", "mv", "endpoint.client", "endpoint.b[0]")
	if code != 1 || !strings.Contains(errs, "endpoint.client names a block with instances (endpoint.client[3], endpoint.client[10]), which cannot move to the one instance endpoint.b[0].") ||
		!strings.Contains(errs, "Move the block to endpoint.b") || strings.Count(errs, "names a block") != 1 {
		t.Errorf("%d %s", code, errs)
	}
}

// As Terraform's, state list without a state says so and fails.
func TestStateListWithoutStateSaysSo(t *testing.T) {
	dir := planDir(t, planTestConfig)
	code, out, errs := stateCmd(t, dir, "", "state", "list")
	if code != 1 || out != "" || !strings.Contains(errs, "No state file was found!") {
		t.Errorf("state list without a state: %d %q %q", code, out, errs)
	}
}

// state list -id=ID lists the objects the agent knows by that name, as
// Terraform's -id filters by the object's id attribute.
func TestStateListByID(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	dir := planDir(t, planTestConfig)
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve"); code != 0 {
		t.Fatalf("apply: %d\n%s%s", code, out, errs)
	}
	code, out, errs := meta.cmd(t, dir, "", "state", "list", "-id=endpoint.client[1]")
	if code != 0 || out != "endpoint.client[1]\n" {
		t.Errorf("state list -id: %d %q %q", code, out, errs)
	}
	if _, out, _ := meta.cmd(t, dir, "", "state", "list", "-id=nothing"); out != "" {
		t.Errorf("state list -id=nothing: %q", out)
	}
}

// state push refuses what a plan could not read, -force or not: an object
// whose attributes do not fit its schema, or one from a later schema.
func TestStatePushRefusesWhatPlanCannotRead(t *testing.T) {
	dir := stateDir(t, plannableState)
	before, _ := os.ReadFile(filepath.Join(dir, "rdmaform.rdmastate"))
	for _, c := range []struct{ doc, want string }{
		{strings.Replace(plannableState, `"port":4791}`, `"port":"abc"}`, 1), "The attributes of endpoint.client[3] in the state do not match its schema: port"},
		{strings.Replace(plannableState, `"schema_version":0`, `"schema_version":7`, 1), "with schema_version 7, written by a later rdmaform"},
	} {
		for _, force := range []bool{false, true} {
			args := []string{"state", "push", "-"}
			if force {
				args = []string{"state", "push", "-force", "-"}
			}
			code, _, errs := stateCmd(t, dir, c.doc, args...)
			if code != 1 || !strings.Contains(errs, c.want) || !strings.Contains(errs, "standard input") || !strings.Contains(errs, "The current state is left as it was.") {
				t.Errorf("%v: %d, want %q in\n%s", args, code, c.want, errs)
			}
		}
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "rdmaform.rdmastate")); !bytes.Equal(before, after) {
		t.Error("a refused push changed the state file")
	}
}

// state mv moves what depends on the object with it, as a moved block
// does: destroy orders its deletes by the recorded dependencies.
func TestStateMvRedirectsDependencies(t *testing.T) {
	dir := stateDir(t, plannableState)
	if code, _, errs := stateCmd(t, dir, "", "state", "mv", "listener.server", "listener.main"); code != 0 {
		t.Fatalf("state mv: %d %s", code, errs)
	}
	_, pulled, _ := stateCmd(t, dir, "", "state", "pull")
	var doc struct {
		Objects []struct {
			Address      string   `json:"address"`
			Dependencies []string `json:"dependencies"`
		} `json:"objects"`
	}
	if err := json.Unmarshal([]byte(pulled), &doc); err != nil {
		t.Fatal(err)
	}
	for _, o := range doc.Objects {
		if o.Address == "endpoint.client[3]" && !slices.Equal(o.Dependencies, []string{"listener.main"}) {
			t.Errorf("endpoint.client[3] depends on %q, want listener.main", o.Dependencies)
		}
	}
	code, _, errs := stateCmd(t, dir, "", "state", "mv", "endpoint.nope", "endpoint.x")
	if code != 1 || !strings.Contains(errs, "Error: Invalid source address") || !strings.Contains(errs, "Cannot move endpoint.nope") {
		t.Errorf("state mv of nothing: %d\n%s", code, errs)
	}
}

// state list ADDRESS of what the state lacks fails, as Terraform's.
func TestStateListOfAnUnknownAddressFails(t *testing.T) {
	dir := stateDir(t, testState)
	for addr, want := range map[string]string{
		"listener.nope":          "Error: Unknown resource\n",
		"endpoint.client[9]":     "Error: Unknown resource instance\n",
		"endpoint.fanout[\"a\"]": "Error: Unknown resource instance\n",
	} {
		code, out, errs := stateCmd(t, dir, "", "state", "list", addr)
		if code != 1 || out != "" || !strings.HasPrefix(errs, want) || !strings.Contains(errs, addr) {
			t.Errorf("state list %s: %d %q\n%s", addr, code, out, errs)
		}
	}
	if code, out, _ := stateCmd(t, dir, "", "state", "list", "endpoint.client"); code != 0 || out != "endpoint.client[3]\nendpoint.client[10]\n" {
		t.Errorf("state list endpoint.client: %d %q", code, out)
	}
}

// state rm and mv say what they did only once the state is saved: a save
// that fails (here the backup cannot replace the directory at its path)
// prints no success and says nothing changed.
func TestStateRmAndMvSayNothingWhenTheSaveFails(t *testing.T) {
	dir := stateDir(t, testState)
	os.MkdirAll(filepath.Join(dir, "rdmaform.rdmastate.backup", "x"), 0o700)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"state", "rm", "endpoint.client[3]"}, "Nothing was removed: the state is as it was."},
		{[]string{"state", "mv", "listener.server", "listener.s"}, "Nothing was moved: the state is as it was."},
		{[]string{"taint", "endpoint.client[3]"}, "Nothing was tainted: the state is as it was."},
	} {
		code, out, errs := stateCmd(t, dir, "", c.args...)
		if code != 1 || out != "" || !strings.Contains(errs, "Error: Failed to write state") || !strings.HasSuffix(errs, "\n\n"+c.want+"\n") {
			t.Errorf("%v: code %d, stdout %q, stderr %q", c.args, code, out, errs)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "rdmaform.rdmastate")); string(data) != testState {
		t.Fatal("the state changed")
	}

	os.RemoveAll(filepath.Join(dir, "rdmaform.rdmastate.backup"))
	code, out, errs := stateCmd(t, dir, "", "state", "rm", "endpoint.client[3]")
	if code != 0 || out != "Removed endpoint.client[3]\nSuccessfully removed 1 resource instance(s).\n" {
		t.Fatalf("code %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, _ = stateCmd(t, dir, "", "state", "rm", "-dry-run", "listener.server")
	if code != 0 || out != "Would remove listener.server\n" {
		t.Fatalf("dry run: code %d, stdout %q", code, out)
	}
}

// holdStateLock locks dir's state until the test ends, as another
// process's apply would (a second manager in this one).
func holdStateLock(t *testing.T, dir string) {
	t.Helper()
	m, ok := openStateManager(dir, Meta{Err: os.Stderr})
	if !ok {
		t.Fatal("open")
	}
	var lf lockFlags
	lf.lock = true
	unlock, ok := lf.acquire(m, "OperationTypeApply", Meta{Err: os.Stderr})
	if !ok {
		t.Fatal("lock")
	}
	t.Cleanup(func() { unlock() })
}
