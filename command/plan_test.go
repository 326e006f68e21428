package command

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/apply"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/state"
	"github.com/zclconf/go-cty/cty"
)

const planTestConfig = `
protection_domain "rxe" {
  device = "rxe0"
}

listener "loop" {
  address = "10.77.0.1"
  port    = 7471
  pd      = protection_domain.rxe.id
}

endpoint "client" {
  count   = 2
  address = listener.loop.address
  port    = listener.loop.port
  pd      = protection_domain.rxe.id

  qp {}
}

output "port" {
  value = listener.loop.port
}
`

// memFabric is an in-memory fabric for the commands' tests: it proves the
// commands' wiring, never that an RDMA feature works.
type memFabric struct {
	mu   sync.Mutex
	live map[string]string // address -> token
	fail map[string]error
	qp   uint32
	// reconnects counts, per address, the reconnections reconnect
	// simulated: each is on QP 200 + its count.
	reconnects map[string]int
	// status is the live status of the addresses it names; the others
	// are established.
	status map[string]string
	// listeners, when not nil, records what the listeners created bind,
	// for plan's check of ports other configurations hold.
	listeners map[string]planner.LiveListener
	// identity is the agent's, which a saved plan records.
	identity planner.AgentIdentity
	// made are the facts Create reported, which Facts reports until the
	// object reconnects.
	made map[string]state.Facts
	// stopped makes the fabric's agent not answer until a command starts
	// it (when its mayStart allows), which starts counts.
	stopped bool
	starts  int
	// beforeCreate, when set, runs at the start of each Create (outside
	// the lock): a test holds a create there to act meanwhile.
	beforeCreate func(name string)
}

// reconnect simulates the agent reconnecting the endpoint at address on
// a new connection.
func (f *memFabric) reconnect(address string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.reconnects == nil {
		f.reconnects = map[string]int{}
	}
	f.reconnects[address]++
}

func (f *memFabric) Facts(_ context.Context, handles []string) (map[string]state.Facts, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]state.Facts{}
	for _, h := range handles {
		if _, ok := f.live[h]; !ok {
			continue
		}
		if n := f.reconnects[h]; n > 0 {
			out[h] = state.Facts{Device: "rxe0", Status: "established", QPNum: uint32(200 + n), LocalPort: 40000 + n, Reconnects: n}
		} else {
			out[h] = f.made[h]
		}
		if st, ok := f.status[h]; ok {
			fs := out[h]
			fs.Status = st
			if st == "reconnecting" || st == "connecting" {
				// Between connections, as the agent's facts: no QP.
				fs.QPNum, fs.LocalAddr, fs.LocalPort = 0, "", 0
			}
			out[h] = fs
		}
	}
	return out, nil
}

func (f *memFabric) Create(_ context.Context, h apply.Handle, spec apply.Spec, token string) (state.Facts, error) {
	if f.beforeCreate != nil {
		f.beforeCreate(h.Name)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.fail[h.Name]; err != nil {
		return state.Facts{}, err
	}
	if held, ok := f.live[h.Name]; ok && held != token {
		return state.Facts{}, fmt.Errorf("%s already exists (made by another create request)", h.Name)
	}
	f.live[h.Name] = token
	if l := spec.Listener; l != nil && f.listeners != nil {
		f.listeners[h.Name] = planner.LiveListener{Handle: h.Name, Address: l.Address, Port: l.Port, PortSpace: string(l.PortSpace)}
	}
	f.qp++
	facts := state.Facts{Device: "rxe0", Status: "established"}
	if h.Addr.Kind == addrs.Endpoint {
		facts.QPNum = 16 + f.qp
	}
	if f.made == nil {
		f.made = map[string]state.Facts{}
	}
	f.made[h.Name] = facts
	return facts, nil
}

// Import adopts what the fabric holds as h.Name, as the agent's adoption
// does (without its comparison with the spec).
func (f *memFabric) Import(_ context.Context, h apply.Handle, _ apply.Spec) (state.Facts, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	tok, ok := f.live[h.Name]
	if !ok {
		return state.Facts{}, fmt.Errorf("the agent holds no %s", h.Name)
	}
	return state.Facts{Device: "rxe0", Status: "established", CreateToken: tok, QPNum: 99}, nil
}

func (f *memFabric) Update(context.Context, apply.Handle, apply.Spec, []cty.Path) (state.Facts, error) {
	return state.Facts{Status: "established"}, nil
}

func (f *memFabric) Delete(_ context.Context, h apply.Handle, token string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.live, h.Name)
	delete(f.listeners, h.Name)
	return nil
}

// Listeners lists the listeners recorded (none unless f.listeners was
// made).
func (f *memFabric) Listeners(context.Context) ([]planner.LiveListener, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []planner.LiveListener
	for _, l := range f.listeners {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Handle < out[j].Handle })
	return out, nil
}

func (f *memFabric) Live(context.Context) (map[string]planner.LiveObject, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]planner.LiveObject{}
	for a, tok := range f.live {
		status := f.status[a]
		if status == "" {
			status = "established"
		}
		out[a] = planner.LiveObject{Token: tok, Status: status, Reconnects: f.reconnects[a]}
	}
	return out, nil
}

// withFabric returns a Meta whose commands use f (nil: no agent in this
// build).
func withFabric(t testing.TB, f *memFabric) Meta {
	t.Helper()
	if f == nil {
		return Meta{NoAgent: true}
	}
	return Meta{Connect: func(_ context.Context, _ string, _ io.Writer, mayStart func() bool) (*fabricConn, error) {
		f.mu.Lock()
		stopped := f.stopped
		f.mu.Unlock()
		if stopped {
			if mayStart != nil && !mayStart() {
				return nil, errors.New("no agent answers")
			}
			f.mu.Lock()
			f.stopped = false
			f.starts++
			f.mu.Unlock()
		}
		identity := func(context.Context) (planner.AgentIdentity, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			return f.identity, nil
		}
		return &fabricConn{Refresher: f, Fabric: f, CreateBeforeDestroy: true, Agent: identity}, nil
	}}
}

func newMemFabric() *memFabric {
	return &memFabric{live: map[string]string{}, fail: map[string]error{}}
}

// stdinTTY, as a Meta's StdinTerminal, makes the commands believe
// standard input is a terminal.
func stdinTTY(io.Reader) bool { return true }

func planDir(t *testing.T, cfg string) string {
	t.Helper()
	t.Chdir(".")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.rdma.hcl"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestPlanWithoutAgentOnEmptyStateSaysSo(t *testing.T) {
	meta := withFabric(t, nil)
	dir := planDir(t, planTestConfig)
	code, out, errs := meta.cmd(t, dir, "", "plan", "-detailed-exitcode")
	if code != 2 || !strings.Contains(out, "Note: the agent is not available in this build") ||
		!strings.Contains(out, "# endpoint.client[1] will be created") || !strings.Contains(out, "Plan: 4 to add, 0 to change, 0 to destroy.") {
		t.Fatalf("code %d\n%s\n%s", code, out, errs)
	}
}

func TestPlanWithoutAgentRefusesToRefreshAState(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	dir := planDir(t, planTestConfig)
	if code, _, errs := meta.cmd(t, dir, "", "apply", "-auto-approve"); code != 0 {
		t.Fatalf("apply: %s", errs)
	}
	meta = withFabric(t, nil)
	code, _, errs := meta.cmd(t, dir, "", "plan")
	if code != 1 || !strings.Contains(errs, "The rdmaform agent is not available") || !strings.Contains(errs, "-refresh=false") {
		t.Fatalf("code %d: %s", code, errs)
	}
	code, out, errs := meta.cmd(t, dir, "", "plan", "-refresh=false", "-detailed-exitcode")
	if code != 0 || !strings.Contains(out, "No changes. Your fabric matches the configuration.") || !strings.Contains(out, "-refresh=false") {
		t.Fatalf("code %d\n%s\n%s", code, out, errs)
	}
	if code, _, errs := meta.cmd(t, dir, "", "apply", "-auto-approve"); code != 1 || !strings.Contains(errs, "agent is not available") {
		t.Fatalf("apply without agent: %d %s", code, errs)
	}
}

func TestApplyThenNoChangesThenDriftThenDestroy(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	dir := planDir(t, planTestConfig)
	code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color")
	if code != 0 {
		t.Fatalf("apply: %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{
		"protection_domain.rxe: Creating...\n",
		"endpoint.client[1]: Creation complete after ",
		"Apply complete! Resources: 4 added, 0 changed, 0 destroyed.\n",
		"\nOutputs:\n\nport = 7471\n",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("apply output lacks %q:\n%s", want, out)
		}
	}
	if len(f.live) != 4 {
		t.Fatalf("live %v", f.live)
	}
	code, out, _ = meta.cmd(t, dir, "", "plan", "-detailed-exitcode")
	if code != 0 || !strings.Contains(out, "No changes.") {
		t.Fatalf("second plan: %d\n%s", code, out)
	}

	delete(f.live, "endpoint.client[0]") // the agent lost it
	code, out, _ = meta.cmd(t, dir, "", "plan", "-detailed-exitcode")
	if code != 2 || !strings.Contains(out, "# endpoint.client[0] has been deleted") || !strings.Contains(out, "# (because the agent no longer holds it)") {
		t.Fatalf("drift plan: %d\n%s", code, out)
	}
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve"); code != 0 || !strings.Contains(out, "1 added") {
		t.Fatalf("heal: %d\n%s\n%s", code, out, errs)
	}

	code, out, errs = meta.cmd(t, dir, "", "destroy", "-auto-approve")
	if code != 0 || !strings.Contains(out, "Destroy complete! Resources: 4 destroyed.") {
		t.Fatalf("destroy: %d\n%s\n%s", code, out, errs)
	}
	if len(f.live) != 0 {
		t.Fatalf("left alive %v", f.live)
	}
	m := state.NewFilesystem(state.LocalOptions{Path: filepath.Join(dir, "rdmaform.rdmastate")})
	m.RefreshState()
	if st := m.State(); len(st.Objects) != 0 || len(st.Outputs) != 0 {
		t.Fatalf("state after destroy: %d objects %d outputs", len(st.Objects), len(st.Outputs))
	}
}

func TestApplyConfirmation(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	dir := planDir(t, planTestConfig)
	code, _, errs := meta.cmd(t, dir, "", "apply")
	if code != 1 || !strings.Contains(errs, "No terminal to confirm the apply") {
		t.Fatalf("no terminal: %d %s", code, errs)
	}
	meta.StdinTerminal = stdinTTY
	code, out, _ := meta.cmd(t, dir, "y\n", "apply")
	if code != 1 || !strings.Contains(out, "  Enter a value: ") || !strings.Contains(out, "Apply cancelled.") || len(f.live) != 0 {
		t.Fatalf("answer y: %d\n%s", code, out)
	}
	code, out, _ = meta.cmd(t, dir, "yes\n", "apply")
	if code != 0 || !strings.Contains(out, "Do you want to perform these actions?") || len(f.live) != 4 {
		t.Fatalf("answer yes: %d\n%s", code, out)
	}
	code, out, _ = meta.cmd(t, dir, "no\n", "destroy")
	if code != 1 || !strings.Contains(out, "Do you really want to destroy all resources?") || !strings.Contains(out, "Destroy cancelled.") || len(f.live) != 4 {
		t.Fatalf("destroy answer no: %d\n%s", code, out)
	}
}

// A saved plan holds for the agent it was refreshed from: once that agent
// restarted (another pid or start time), its objects are gone, and apply
// refuses the plan as stale rather than carry it out against them.
func TestSavedPlanAppliesOnlyWithItsAgent(t *testing.T) {
	f := newMemFabric()
	f.identity = planner.AgentIdentity{PID: 311, StartedAt: 1_700_000_000_000_000_000}
	meta := withFabric(t, f)
	dir := planDir(t, planTestConfig)
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve"); code != 0 {
		t.Fatalf("apply: %d\n%s\n%s", code, out, errs)
	}
	writeConfig(t, dir, strings.Replace(planTestConfig, "count   = 2", "count   = 3", 1))
	planFile := filepath.Join(dir, "p.plan")
	if code, out, errs := meta.cmd(t, dir, "", "plan", "-out="+planFile); code != 0 || !strings.Contains(out, "1 to add") {
		t.Fatalf("plan -out: %d\n%s\n%s", code, out, errs)
	}
	f.mu.Lock()
	f.identity = planner.AgentIdentity{PID: 402, StartedAt: 1_700_000_100_000_000_000}
	f.live = map[string]string{}
	f.mu.Unlock()
	code, out, errs := meta.cmd(t, dir, "", "apply", planFile)
	if code != 1 || !strings.Contains(errs, "Saved plan is stale") || !strings.Contains(errs, "pid 311") || !strings.Contains(errs, "is pid 402") || len(liveNames(f)) != 0 {
		t.Fatalf("apply of a plan made against another agent: %d\n%s\n%s", code, out, errs)
	}

	// Against the agent it was made with, it applies.
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve"); code != 0 {
		t.Fatalf("apply: %d\n%s\n%s", code, out, errs)
	}
	writeConfig(t, dir, strings.Replace(planTestConfig, "count   = 2", "count   = 4", 1))
	if code, out, errs := meta.cmd(t, dir, "", "plan", "-out="+planFile); code != 0 {
		t.Fatalf("plan -out: %d\n%s\n%s", code, out, errs)
	}
	if code, out, errs := meta.cmd(t, dir, "", "apply", planFile); code != 0 || !strings.Contains(out, "Apply complete! Resources: 1 added") {
		t.Fatalf("apply of a plan made against this agent: %d\n%s\n%s", code, out, errs)
	}
}

func TestSavedPlanAppliesOnlyIfStateUnchanged(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	dir := planDir(t, planTestConfig)
	planFile := filepath.Join(dir, "p.plan")
	if code, out, errs := meta.cmd(t, dir, "", "plan", "-out="+planFile); code != 0 || !strings.Contains(out, "Saved the plan to: ") {
		t.Fatalf("plan -out: %d\n%s\n%s", code, out, errs)
	}
	code, out, errs := meta.cmd(t, dir, "", "show", planFile)
	if code != 0 || !strings.Contains(out, "# listener.loop will be created") || !strings.Contains(out, "(known after apply)") {
		t.Fatalf("show plan: %d\n%s\n%s", code, out, errs)
	}
	if code, out, _ := meta.cmd(t, dir, "", "show", "-json", planFile); code != 0 || !strings.Contains(out, `"resource_changes"`) {
		t.Fatalf("show -json plan: %d\n%s", code, out)
	}
	stale := filepath.Join(dir, "stale.plan")
	meta.cmd(t, dir, "", "plan", "-out="+stale)
	if code, out, errs := meta.cmd(t, dir, "", "apply", planFile); code != 0 || !strings.Contains(out, "Apply complete! Resources: 4 added") {
		t.Fatalf("apply plan: %d\n%s\n%s", code, out, errs)
	}
	code, _, errs = meta.cmd(t, dir, "", "apply", stale)
	if code != 1 || !strings.Contains(errs, "Saved plan is stale") {
		t.Fatalf("stale plan: %d %s", code, errs)
	}

	// A changed configuration makes a saved plan unusable too.
	p2 := filepath.Join(dir, "p2.plan")
	meta.cmd(t, dir, "", "plan", "-destroy", "-out="+p2)
	os.WriteFile(filepath.Join(dir, "main.rdma.hcl"), []byte(planTestConfig+"\n# edited\n"), 0o644)
	code, _, errs = meta.cmd(t, dir, "", "apply", p2)
	if code != 1 || !strings.Contains(errs, "Saved plan does not match the configuration") || len(f.live) != 4 {
		t.Fatalf("changed config: %d %s", code, errs)
	}
}

func TestApplyFailureKeepsWhatSucceeded(t *testing.T) {
	f := newMemFabric()
	f.fail["listener.loop"] = fmt.Errorf("rdma_listen: %w (EADDRINUSE)", syscall.EADDRINUSE)
	meta := withFabric(t, f)
	dir := planDir(t, planTestConfig)
	code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve")
	if code != 1 {
		t.Fatalf("code %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{
		"Error: listener.loop: create failed: rdma_listen: address already in use (EADDRINUSE)\n\n  on main.rdma.hcl:6:1, in listener \"loop\":\n   6: listener \"loop\" {\n",
		"Note: 2 objects were not changed because listener.loop failed: endpoint.client[0] (create), endpoint.client[1] (create)",
		"Apply failed. Resources: 1 added, 0 changed, 0 destroyed; 1 failed, 2 skipped, 0 not started.",
	} {
		if !strings.Contains(errs, want) {
			t.Fatalf("stderr lacks %q:\n%s", want, errs)
		}
	}
	delete(f.fail, "listener.loop")
	code, out, _ = meta.cmd(t, dir, "", "plan", "-detailed-exitcode")
	if code != 2 || !strings.Contains(out, "Plan: 3 to add, 0 to change, 0 to destroy.") {
		t.Fatalf("plan after failure: %d\n%s", code, out)
	}
}

func TestPlanJSONAndBadAddresses(t *testing.T) {
	meta := withFabric(t, newMemFabric())
	dir := planDir(t, planTestConfig)
	// As Terraform's: the machine-readable UI, one message a line.
	code, out, _ := meta.cmd(t, dir, "", "plan", "-json")
	msgs := uiLines(t, out)
	if code != 0 || len(msgs) < 3 || msgs[0]["type"] != "version" {
		t.Fatalf("plan -json: %d\n%s", code, out)
	}
	var planned, summaries int
	for _, m := range msgs {
		switch m["type"] {
		case "planned_change":
			if m["change"].(map[string]any)["action"] == "create" {
				planned++
			}
		case "change_summary":
			c := m["changes"].(map[string]any)
			if c["add"] != 4.0 || c["remove"] != 0.0 || c["operation"] != "plan" {
				t.Errorf("change_summary %v", c)
			}
			summaries++
		}
	}
	if len(ofType(msgs, "outputs")) != 1 {
		t.Errorf("no outputs message:\n%s", out)
	}
	if planned != 4 || summaries != 1 {
		t.Errorf("%d planned creates (want 4), %d summaries (want 1):\n%s", planned, summaries, out)
	}
	// The document is show -json's, of the saved plan.
	code, out, _ = planDocument(t, meta, dir)
	if code != 0 || !strings.HasPrefix(out, `{"format_version":"1.0"`) || !strings.Contains(out, `"summary":{"add":4,"change":0,"destroy":0,"remove":0}`) {
		t.Fatalf("show -json of the saved plan: %d\n%s", code, out)
	}
	if !strings.Contains(out, `"applyable":true,"complete":true`) {
		t.Errorf("a full plan with changes is not applyable and complete:\n%s", out)
	}
	if _, out, _ = planDocument(t, meta, dir, "-target=listener.loop"); !strings.Contains(out, `"applyable":true,"complete":false`) {
		t.Errorf("a targeted plan is complete:\n%s", out)
	}
	code, _, errs := meta.cmd(t, dir, "", "plan", "-target=nope.x")
	if code != 1 || !strings.Contains(errs, "Invalid -target address") {
		t.Fatalf("bad target: %d %s", code, errs)
	}
}

// holdLock takes the state lock of the local state in dir, as another
// apply would, until the test ends; it returns the lock's ID.
func holdLock(t *testing.T, dir string) string {
	t.Helper()
	m := state.NewFilesystem(state.LocalOptions{Path: filepath.Join(dir, "rdmaform.rdmastate")})
	id, err := m.Lock(state.NewLockInfo("OperationTypeApply"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Unlock(id) })
	return id
}

func TestPlanWaitsForTheLock(t *testing.T) {
	meta := withFabric(t, newMemFabric())
	dir := planDir(t, planTestConfig)
	holdLock(t, dir)
	code, _, errs := meta.cmd(t, dir, "", "apply", "-auto-approve")
	if code != 1 || !strings.Contains(errs, "lock") {
		t.Fatalf("apply under a held lock: %d %s", code, errs)
	}
}

// A configuration error is reported at once, even while the state lock
// (taken while the configuration loads) is held by someone else and
// -lock-timeout would wait for it; and it is the only error shown.
func TestConfigErrorDoesNotWaitForTheLock(t *testing.T) {
	meta := withFabric(t, newMemFabric())
	dir := planDir(t, planTestConfig+"\nendpoint \"broken\" {\n  port = 1\n}\n")
	holdLock(t, dir)
	start := time.Now()
	code, _, errs := meta.cmd(t, dir, "", "plan", "-lock-timeout=2m")
	if took := time.Since(start); took > time.Minute {
		t.Fatalf("plan waited %v for the lock before reporting the configuration error", took)
	}
	if code != 1 || !strings.Contains(errs, `Missing required argument`) || strings.Contains(errs, "lock") {
		t.Fatalf("plan with a configuration error under a held lock: %d\n%s", code, errs)
	}
}

// Outputs using attributes known only after apply get their values at
// apply, keep them while nothing changes, and are known after apply again
// when their object is replaced.
func TestOutputsKnownAfterApply(t *testing.T) {
	meta := withFabric(t, newMemFabric())
	dir := planDir(t, `
listener "l" {
  address = "10.77.0.1"
  port    = 7471
}
endpoint "e" {
  count   = 2
  address = listener.l.address
  port    = listener.l.port
}
output "qps" {
  value = endpoint.e[*].qp_num
}
output "port" {
  value = listener.l.port
}
`)
	code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color")
	if code != 0 || !regexp.MustCompile(`(?s)Outputs:.*qps = \[\s*\d+,\s*\d+,?\s*\]`).MatchString(out) {
		t.Fatalf("apply: %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = meta.cmd(t, dir, "", "output", "-json", "qps")
	if code != 0 || !regexp.MustCompile(`^\[\d+,\d+\]\n$`).MatchString(out) {
		t.Fatalf("output qps after apply: %d %q %s", code, out, errs)
	}
	qps := out
	code, out, errs = meta.cmd(t, dir, "", "plan", "-detailed-exitcode", "-no-color")
	if code != 0 || !strings.Contains(out, "No changes.") {
		t.Fatalf("plan after apply: %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = meta.cmd(t, dir, "", "plan", "-replace=endpoint.e[1]", "-detailed-exitcode", "-no-color")
	if code != 2 || !regexp.MustCompile(`~ qps\s+= \[`).MatchString(out) || !strings.Contains(out, "(known after apply)") {
		t.Fatalf("plan replacing endpoint.e[1]: %d\n%s\n%s", code, out, errs)
	}
	if code, _, errs = meta.cmd(t, dir, "", "apply", "-replace=endpoint.e[1]", "-auto-approve", "-no-color"); code != 0 {
		t.Fatalf("apply -replace: %d %s", code, errs)
	}
	code, out, _ = meta.cmd(t, dir, "", "output", "-json", "qps")
	if code != 0 || !regexp.MustCompile(`^\[\d+,\d+\]\n$`).MatchString(out) || out == qps {
		t.Fatalf("output qps after the replacement: %q (before %q)", out, qps)
	}
}

// plan -json reports a configuration error as a diagnostic message on
// standard output, as Terraform's -json does, not as text on standard
// error.
func TestPlanJSONReportsConfigurationErrorsAsJSON(t *testing.T) {
	meta := withFabric(t, newMemFabric())
	dir := planDir(t, "endpoint \"e\" {\n  address = \"10.77.0.1\"\n  port    = 99999\n}\n")
	code, out, errs := meta.cmd(t, dir, "", "plan", "-json")
	msgs := uiLines(t, out)
	if code != 1 || errs != "" || len(msgs) != 2 || msgs[0]["type"] != "version" || msgs[1]["type"] != "diagnostic" || msgs[1]["@level"] != "error" {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	d := msgs[1]["diagnostic"].(map[string]any)
	r, _ := d["range"].(map[string]any)
	if !strings.Contains(d["detail"].(string), "port must be from 1 to 65535") || r == nil || r["filename"] != "main.rdma.hcl" || r["start"].(map[string]any)["line"] != 3.0 {
		t.Errorf("diagnostic %v", d)
	}
}

// Bad option values are explained, not just "parse error".
func TestBadOptionValuesAreExplained(t *testing.T) {
	meta := withFabric(t, newMemFabric())
	dir := planDir(t, planTestConfig)
	for _, c := range []struct{ flag, want string }{
		{"-parallelism=x", `"x" is not a whole number of at least 1`},
		{"-parallelism=0", `"0" is not a whole number of at least 1`},
		{"-lock-timeout=5", `"5" is not a duration: write a number with a unit`},
	} {
		if code, _, errs := meta.cmd(t, dir, "", "plan", c.flag); code != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("plan %s: %d %s", c.flag, code, errs)
		}
	}
}

// A saved plan is applied only by the rdmaform version that made it.
func TestSavedPlanFromAnotherVersionIsRefused(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	dir := planDir(t, planTestConfig)
	planFile := filepath.Join(dir, "p.plan")
	if code, _, errs := meta.cmd(t, dir, "", "plan", "-out="+planFile); code != 0 {
		t.Fatalf("plan -out: %d %s", code, errs)
	}
	raw, err := os.ReadFile(planFile)
	if err != nil {
		t.Fatal(err)
	}
	other := strings.Replace(string(raw), `"rdmaform_version": "`+Version+`"`, `"rdmaform_version": "9.9.9"`, 1)
	if other == string(raw) {
		t.Fatalf("the plan file does not record the version %s:\n%.300s", Version, raw)
	}
	os.WriteFile(planFile, []byte(other), 0o644)
	code, out, errs := meta.cmd(t, dir, "", "apply", planFile)
	if code != 1 || !strings.Contains(errs, "created by rdmaform 9.9.9, but this is rdmaform "+Version) || len(f.live) != 0 {
		t.Fatalf("apply of another version's plan: %d\n%s\n%s", code, out, errs)
	}
}

// On a terminal, as Terraform does, plan asks for a variable that has no
// value (name order, with its description); a saved plan records the
// answer; -input=false asks nothing.
func TestPlanAsksForVariablesOnATerminal(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	meta.StdinTerminal = stdinTTY
	dir := planDir(t, `
variable "port" {
  type        = number
  description = "The listener's port"
}
variable "addr" {}
listener "l" {
  address = var.addr
  port    = var.port
}
`)
	code, out, errs := meta.cmd(t, dir, "10.77.0.1\n7480\n", "plan", "-no-color", "-out=p.plan")
	if code != 0 || !strings.Contains(out, "var.addr\n  Enter a value: \nvar.port\n  The listener's port\n\n  Enter a value: ") ||
		!regexp.MustCompile(`\+ port += 7480`).MatchString(out) ||
		!regexp.MustCompile(`\+ address += "10.77.0.1"`).MatchString(out) {
		t.Fatalf("plan: %d\n%s%s", code, out, errs)
	}
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-no-color", "p.plan"); code != 0 || strings.Contains(out, "Enter a value") {
		t.Fatalf("apply of the saved plan: %d\n%s%s", code, out, errs)
	}
	if code, out, errs := meta.cmd(t, dir, "", "plan", "-no-color", "-input=false"); code != 1 || strings.Contains(out, "Enter a value") || !strings.Contains(errs, "No value for required variable") {
		t.Errorf("plan -input=false: %d\n%s%s", code, out, errs)
	}
}

// plan -json and show -json of a saved plan carry the root variables'
// values, as Terraform's "variables".
func TestPlanJSONHasTheVariables(t *testing.T) {
	meta := withFabric(t, newMemFabric())
	dir := planDir(t, `
variable "port" {
  type    = number
  default = 7471
}
variable "tags" {
  type = map(string)
}
listener "l" {
  address = "10.77.0.1"
  port    = var.port
}
`)
	want := map[string]any{"port": map[string]any{"value": 7000.0}, "tags": map[string]any{"value": map[string]any{"rack": "a"}}}
	check := func(what, out string) {
		t.Helper()
		var doc struct {
			Variables map[string]any `json:"variables"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%s: %v\n%s", what, err, out)
		}
		if !reflect.DeepEqual(doc.Variables, want) {
			t.Errorf("%s: variables %v, want %v", what, doc.Variables, want)
		}
	}
	code, out, errs := planDocument(t, meta, dir, "-var", "port=7000", "-var", `tags={rack="a"}`)
	if code != 0 {
		t.Fatalf("plan -json: %d %s", code, errs)
	}
	check("plan -json", out)
	if code, _, errs := meta.cmd(t, dir, "", "plan", "-out=p", "-var", "port=7000", "-var", `tags={rack="a"}`); code != 0 {
		t.Fatalf("plan -out: %d %s", code, errs)
	}
	code, out, errs = meta.cmd(t, dir, "", "show", "-json", "p")
	if code != 0 {
		t.Fatalf("show -json p: %d %s", code, errs)
	}
	check("show -json of the saved plan", out)
}

// An option after the saved plan is taken for a second argument (flags end
// at the first): the error says to put it first.
func TestApplyOptionAfterThePlanFile(t *testing.T) {
	meta := withFabric(t, newMemFabric())
	dir := planDir(t, planTestConfig)
	code, _, errs := meta.cmd(t, dir, "", "apply", "tfplan", "-no-color")
	if code != 1 || !strings.Contains(errs, "apply takes at most one argument") || !strings.Contains(errs, "rdmaform apply -no-color tfplan") {
		t.Errorf("%d %s", code, errs)
	}
	code, _, errs = meta.cmd(t, dir, "", "apply", "one", "two")
	if code != 1 || strings.Contains(errs, "Options go before") {
		t.Errorf("two plan files: %d %s", code, errs)
	}
}

// planDocument is the plan as one JSON document, as a script gets it from
// Terraform: plan -out=FILE, then show -json FILE.
func planDocument(t *testing.T, m Meta, dir string, args ...string) (int, string, string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "doc.plan")
	code, out, errs := m.cmd(t, dir, "", append([]string{"plan", "-out=" + file}, args...)...)
	if code != 0 {
		return code, out, errs
	}
	return m.cmd(t, dir, "", "show", "-json", file)
}
