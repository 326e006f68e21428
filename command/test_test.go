package command

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/apply"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/state"
)

// LiveViews gives the test command's live view of the fake fabric: every
// object established, endpoints probing with a 0.25 ms round trip.
func (f *memFabric) LiveViews(context.Context) (map[string]liveView, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]liveView{}
	for h := range f.live {
		v := liveView{Status: "established"}
		if st, ok := f.status[h]; ok {
			v.Status = st
		}
		if strings.HasPrefix(h, "endpoint.") {
			v.Probe = &config.LiveProbe{Mode: "send", Sent: 4, Received: 4, LastMS: 0.25, MinMS: 0.2, MeanMS: 0.25, MaxMS: 0.3}
		}
		out[h] = v
	}
	return out, nil
}

const testCmdConfig = planTestConfig + `
variable "port" {
  type    = number
  default = 7471
  validation {
    condition     = var.port > 1024
    error_message = "The port must be above 1024."
  }
}

output "client_qp" {
  value = endpoint.client[0].qp_num
}
`

// testCmdDir is a configuration directory with test files (name ->
// content).
func testCmdDir(t *testing.T, cfg string, files map[string]string) string {
	t.Helper()
	dir := planDir(t, cfg)
	for name, content := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Terraform's terraform test is the reference for the output's lines.
func TestTestCommandRunsAppliesAndPlansThenTearsDown(t *testing.T) {
	f := newMemFabric()
	dir := testCmdDir(t, testCmdConfig, map[string]string{
		"main.rdmatest.hcl": `
variables {
  port = 7480
}

run "apply" {
  assert {
    condition     = listener.loop.port == 7471
    error_message = "listener port"
  }
  assert {
    condition     = endpoint.client[0].qp_num > 0 && length(endpoint.client) == 2
    error_message = "qp"
  }
  assert {
    condition     = output.client_qp == endpoint.client[0].qp_num && output.port == 7471
    error_message = "outputs"
  }
  assert {
    condition     = var.port == 7480
    error_message = "file variable"
  }
  assert {
    condition     = alltrue([for e in live.endpoint.client : e.status == "established" && e.probe.max_ms < 1])
    error_message = "links"
  }
}

run "plan" {
  command = plan
  variables {
    port = 7490
  }
  assert {
    condition     = var.port == 7490 && endpoint.client[1].status == "established"
    error_message = "run variable"
  }
}
`,
		"tests/more.rdmatest.hcl": `
run "only" {
  command = plan
  assert {
    condition     = listener.loop.address == "10.77.0.1"
    error_message = "address"
  }
}
`,
	})
	code, out, errs := withFabric(t, f).cmd(t, dir, "", "test", "-no-color")
	want := `main.rdmatest.hcl... in progress
  run "apply"... pass
  run "plan"... pass
main.rdmatest.hcl... tearing down
main.rdmatest.hcl... pass
tests/more.rdmatest.hcl... in progress
  run "only"... pass
tests/more.rdmatest.hcl... tearing down
tests/more.rdmatest.hcl... pass

Success! 3 passed, 0 failed.
`
	if code != 0 || out != want {
		t.Fatalf("code %d\n%s\nwant:\n%s\nstderr:\n%s", code, out, want, errs)
	}
	if len(f.live) != 0 {
		t.Fatalf("the teardown left objects in the fabric: %v", f.live)
	}
	if _, err := os.Stat(filepath.Join(dir, config.DefaultStatePath)); !os.IsNotExist(err) {
		t.Fatalf("the test wrote the configuration's own state: %v", err)
	}
	for h := range f.made {
		if !strings.Contains(h, "@rdmatest-") {
			t.Fatalf("object %s made outside the test's own agent namespace", h)
		}
	}
}

func TestTestCommandFailingAssertionShowsMessageAndValues(t *testing.T) {
	f := newMemFabric()
	dir := testCmdDir(t, testCmdConfig, map[string]string{"main.rdmatest.hcl": `run "ok" {
  assert {
    condition     = listener.loop.port == 7471
    error_message = "listener port"
  }
}

run "bad" {
  assert {
    condition     = listener.loop.port == 7472
    error_message = "The listener listens on ${listener.loop.port}, not 7472."
  }
}

run "links" {
  assert {
    condition     = live.endpoint.client[0].probe.max_ms < 0.1
    error_message = "Probe round trips are too slow."
  }
}
`})
	code, out, errs := withFabric(t, f).cmd(t, dir, "", "test", "-no-color")
	for _, want := range []string{
		"  run \"ok\"... pass\n", "  run \"bad\"... fail\n", "  run \"links\"... fail\n",
		"Error: Test assertion failed",
		"on main.rdmatest.hcl:10:21, in run \"bad\":",
		"with listener.loop.port as 7471.",
		"The listener listens on 7471, not 7472.",
		"live.endpoint.client[0].probe.max_ms as 0.3",
		"Probe round trips are too slow.",
		"main.rdmatest.hcl... fail\n",
		"\nFailure! 1 passed, 2 failed.\n",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("code %d: no %q in\n%s\nstderr:\n%s", code, want, out, errs)
		}
	}
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	if len(f.live) != 0 {
		t.Fatalf("the teardown left objects after a failed assertion: %v", f.live)
	}
}

func TestTestCommandValidatesTestFiles(t *testing.T) {
	dir := testCmdDir(t, testCmdConfig, map[string]string{"main.rdmatest.hcl": `run "a" {
  command = destroy
  assert {
    condition     = true
    error_message = "x"
  }
}

provider "x" {}

run "b" {
}

run "c" {
  asert {
  }
}
`})
	code, out, errs := withFabric(t, newMemFabric()).cmd(t, dir, "", "test", "-no-color")
	for _, want := range []string{
		"Error: Invalid run command", "on main.rdmatest.hcl:2:13, in run \"a\":",
		"Error: Unsupported block type", "on main.rdmatest.hcl:9:1",
		"on main.rdmatest.hcl:15:3",
		"Warning: Run without assertions", "on main.rdmatest.hcl:11:1",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("code %d: no %q in\n%s\nstderr:\n%s", code, want, out, errs)
		}
	}
	if code != 1 || strings.Contains(out, "in progress") {
		t.Fatalf("code %d; a file that does not parse must not run:\n%s", code, out)
	}
}

func TestTestCommandBadReferenceFailsTheRun(t *testing.T) {
	f := newMemFabric()
	dir := testCmdDir(t, testCmdConfig, map[string]string{"main.rdmatest.hcl": `run "a" {
  assert {
    condition     = output.clent_qp > 0
    error_message = "x"
  }
  assert {
    condition     = endpoint.nope[0].qp_num > 0
    error_message = "x"
  }
}
`})
	code, out, errs := withFabric(t, f).cmd(t, dir, "", "test", "-no-color")
	for _, want := range []string{
		"Error: Reference to undeclared output value", "on main.rdmatest.hcl:3:21", `Did you mean "client_qp"?`,
		"on main.rdmatest.hcl:7:21", "  run \"a\"... fail",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("code %d: no %q in\n%s\nstderr:\n%s", code, want, out, errs)
		}
	}
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
}

// An apply that fails is an error: the file's later runs are skipped, as
// Terraform's, and what was applied is still destroyed.
func TestTestCommandFailedApplySkipsTheRestAndTearsDown(t *testing.T) {
	f := newMemFabric()
	dir := testCmdDir(t, testCmdConfig, map[string]string{"main.rdmatest.hcl": `run "first" {
  assert {
    condition     = true
    error_message = "x"
  }
}

run "second" {
  variables {
    port = 80
  }
  assert {
    condition     = true
    error_message = "x"
  }
}

run "third" {
  assert {
    condition     = true
    error_message = "x"
  }
}
`})
	code, out, errs := withFabric(t, f).cmd(t, dir, "", "test", "-no-color")
	for _, want := range []string{
		"  run \"first\"... pass\n", "  run \"second\"... fail\n", "The port must be above 1024.", "  run \"third\"... skip\n",
		"\nFailure! 1 passed, 1 failed, 1 skipped.\n",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("code %d: no %q in\n%s\nstderr:\n%s", code, want, out, errs)
		}
	}
	if code != 1 || len(f.live) != 0 {
		t.Fatalf("code %d, left %v\n%s", code, f.live, out)
	}
}

func TestTestCommandExpectFailures(t *testing.T) {
	f := newMemFabric()
	dir := testCmdDir(t, testCmdConfig, map[string]string{"main.rdmatest.hcl": `run "low_port" {
  command = plan
  variables {
    port = 80
  }
  expect_failures = [var.port]
}

run "not_failing" {
  command = plan
  expect_failures = [var.port]
}
`})
	code, out, errs := withFabric(t, f).cmd(t, dir, "", "test", "-no-color")
	for _, want := range []string{
		"  run \"low_port\"... pass\n", "  run \"not_failing\"... fail\n", "Error: Missing expected failure", "on main.rdmatest.hcl:9:1",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("code %d: no %q in\n%s\nstderr:\n%s", code, want, out, errs)
		}
	}
}

// failingDelete is a fabric whose objects cannot be destroyed.
type failingDelete struct{ *memFabric }

func (failingDelete) Delete(context.Context, apply.Handle, string) error {
	return errors.New("rdma_destroy_id: EBUSY (the device is busy); try again")
}

func TestTestCommandSaysWhatTheTeardownLeft(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	connect := meta.Connect
	meta.Connect = func(ctx context.Context, socket string, notify io.Writer, mayStart func() bool) (*fabricConn, error) {
		fc, err := connect(ctx, socket, notify, mayStart)
		if err == nil {
			fc.Fabric = failingDelete{f}
		}
		return fc, err
	}
	dir := testCmdDir(t, testCmdConfig, map[string]string{"main.rdmatest.hcl": `run "a" {
  assert {
    condition     = true
    error_message = "x"
  }
}
`})
	code, out, errs := meta.cmd(t, dir, "", "test", "-no-color")
	for _, want := range []string{
		"  run \"a\"... pass\n", "main.rdmatest.hcl... tearing down\n", "Error: Failed to clean up after tests",
		"they need to be cleaned up manually", "endpoint.client[1]", "protection_domain.rxe", "destroy\nto destroy them.",
		"main.rdmatest.hcl... fail\n", "\nFailure! 1 passed, 0 failed.\n",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("code %d: no %q in\n%s\nstderr:\n%s", code, want, out, errs)
		}
	}
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, out)
	}
}

func TestTestCommandJSON(t *testing.T) {
	f := newMemFabric()
	dir := testCmdDir(t, testCmdConfig, map[string]string{"main.rdmatest.hcl": `run "a" {
  assert {
    condition     = listener.loop.port == 7472
    error_message = "port"
  }
}
`})
	code, out, errs := withFabric(t, f).cmd(t, dir, "", "test", "-json")
	var types []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not JSON: %q (%v)\n%s", line, err, errs)
		}
		types = append(types, m["type"].(string))
	}
	got := strings.Join(types, " ")
	want := "version test_abstract test_file test_run diagnostic test_run test_file test_file test_summary"
	if code != 1 || got != want || !strings.Contains(out, `"test_summary":{"errored":0,"failed":1,"passed":0,"skipped":0,"status":"fail"}`) ||
		!strings.Contains(out, `"@testfile":"main.rdmatest.hcl","@testrun":"a","@timestamp"`) || !strings.Contains(out, `"test_run":{"path":"main.rdmatest.hcl","progress":"complete","run":"a","status":"fail"}`) {
		t.Fatalf("code %d, types %s, want %s\n%s\n%s", code, got, want, out, errs)
	}
}

func TestTestCommandFilter(t *testing.T) {
	f := newMemFabric()
	run := "run \"a\" {\n  command = plan\n  assert {\n    condition     = true\n    error_message = \"x\"\n  }\n}\n"
	dir := testCmdDir(t, testCmdConfig, map[string]string{"a.rdmatest.hcl": run, "tests/b.rdmatest.hcl": run})
	code, out, errs := withFabric(t, f).cmd(t, dir, "", "test", "-no-color", "-filter=tests/b.rdmatest.hcl")
	if code != 0 || strings.Contains(out, "\na.rdmatest.hcl...") || !strings.Contains(out, "tests/b.rdmatest.hcl... pass") {
		t.Fatalf("code %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = withFabric(t, f).cmd(t, dir, "", "test", "-no-color", "-filter=c.rdmatest.hcl")
	if code != 1 || !strings.Contains(errs+out, "no test file matches -filter c.rdmatest.hcl") {
		t.Fatalf("code %d\n%s\n%s", code, out, errs)
	}
}

// Every example's test file passes on the fake fabric (in the VM,
// TestTestCommandLoopbackExample runs loopback's on Soft-RoCE).
func TestTestCommandExamplesPassOnTheFakeFabric(t *testing.T) {
	for _, name := range []string{"loopback", "fanout", "ud-pair", "variables", "checks", "multi-host"} {
		t.Run(name, func(t *testing.T) {
			t.Chdir(".")
			dir, err := filepath.Abs(filepath.Join("..", "examples", name))
			if err != nil {
				t.Fatal(err)
			}
			f := newMemFabric()
			meta := withFabric(t, f)
			connect := meta.Connect
			meta.Connect = func(ctx context.Context, socket string, notify io.Writer, mayStart func() bool) (*fabricConn, error) {
				fc, err := connect(ctx, socket, notify, mayStart)
				if err == nil {
					fc.Fabric = boundFabric{f}
				}
				return fc, err
			}
			var at *agentsTest
			if name == "multi-host" {
				at = newAgentsTest(map[string]string{"a": `agent.storage["s1"]`, "b": `agent.storage["s2"]`, "c": "agent.compute"})
				meta = at.meta(t)
				meta.configHook = nil // the configuration's own agent blocks
			}
			code, out, errs := meta.cmd(t, dir, "", "test", "-no-color")
			if code != 0 || !strings.Contains(out, "main.rdmatest.hcl... pass") {
				t.Fatalf("code %d\n%s\n%s", code, out, errs)
			}
			if len(f.live) != 0 {
				t.Fatalf("left %v", f.live)
			}
			if at != nil {
				for k, a := range at.agents {
					if len(a.live) != 0 {
						t.Fatalf("left on %s: %v", k, a.live)
					}
				}
			}
			if _, err := os.Stat(filepath.Join(dir, config.DefaultStatePath)); !os.IsNotExist(err) {
				t.Fatalf("the test wrote a state in the example: %v", err)
			}
		})
	}
}

// boundFabric is a memFabric whose endpoints report the local address
// the agent's would: the listener's, on the loopback testbed (checks'
// postconditions compare them).
type boundFabric struct{ *memFabric }

func (b boundFabric) Create(ctx context.Context, h apply.Handle, spec apply.Spec, token string) (state.Facts, error) {
	facts, err := b.memFabric.Create(ctx, h, spec, token)
	if err == nil && spec.Endpoint != nil {
		facts.LocalAddr = spec.Endpoint.Address
	}
	return facts, err
}

// -var and -var-file give every run its variables; a test file's own win
// over them, as in Terraform.
func TestTestCommandVariablesFromTheCommandLine(t *testing.T) {
	f := newMemFabric()
	dir := testCmdDir(t, testCmdConfig, map[string]string{
		"cli.rdmavars": "port = 7476\n",
		"main.rdmatest.hcl": `run "cli" {
  command = plan
  assert {
    condition     = var.port == 7476
    error_message = "-var-file's value, after -var's"
  }
}

run "own" {
  command = plan
  variables {
    port = 7477
  }
  assert {
    condition     = var.port == 7477
    error_message = "the run's own value"
  }
}
`})
	t.Chdir(dir)
	code, out, errs := withFabric(t, f).cmd(t, ".", "", "test", "-no-color", "-var=port=7475", "-var-file=cli.rdmavars")
	if code != 0 || !strings.Contains(out, "Success! 2 passed, 0 failed.") {
		t.Fatalf("code %d\n%s\n%s", code, out, errs)
	}
}

// slowProbes is a fabric whose endpoints have sent no probe for the first
// reads of their live view, as right after an apply.
type slowProbes struct {
	*memFabric
	reads int
}

func (s *slowProbes) LiveViews(ctx context.Context) (map[string]liveView, error) {
	views, err := s.memFabric.LiveViews(ctx)
	s.reads++
	for h, v := range views {
		if v.Probe != nil && s.reads < 3 {
			v.Probe = &config.LiveProbe{Mode: "send"}
			views[h] = v
		}
	}
	return views, err
}

// Assertions on the live view wait for every probing endpoint to have a
// probe's outcome, rather than reading the nothing of the first instant.
func TestTestCommandLiveWaitsForProbes(t *testing.T) {
	f := newMemFabric()
	slow := &slowProbes{memFabric: f}
	meta := withFabric(t, f)
	connect := meta.Connect
	meta.Connect = func(ctx context.Context, socket string, notify io.Writer, mayStart func() bool) (*fabricConn, error) {
		fc, err := connect(ctx, socket, notify, mayStart)
		if err == nil {
			fc.Refresher = slow
		}
		return fc, err
	}
	dir := testCmdDir(t, testCmdConfig, map[string]string{"main.rdmatest.hcl": `run "probes" {
  assert {
    condition     = alltrue([for e in live.endpoint.client : e.probe.received > 0])
    error_message = "no probe answered"
  }
}
`})
	code, out, errs := meta.cmd(t, dir, "", "test", "-no-color")
	if code != 0 || slow.reads < 3 {
		t.Fatalf("code %d after %d reads\n%s\n%s", code, slow.reads, out, errs)
	}
}
