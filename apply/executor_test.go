package apply

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/state"
	"github.com/zclconf/go-cty/cty"
)

const loopback = `
protection_domain "rxe" {
  device = "rxe0"
}

listener "loop" {
  address = "10.77.0.1"
  port    = 7471
  pd      = protection_domain.rxe.id
}

endpoint "client" {
  count   = 3
  address = listener.loop.address
  port    = listener.loop.port
  pd      = protection_domain.rxe.id

  qp {}

  reconnect {}
}

output "port" {
  value = listener.loop.port
}
`

// fakeFabric records calls; fail names addresses whose create fails.
type fakeFabric struct {
	mu       sync.Mutex
	calls    []string
	specs    map[string]Spec
	live     map[string]string // address -> token
	fail     map[string]error
	delay    time.Duration
	inFlight int
	maxIn    int
	started  chan string // receives each address as its call starts, if set
	// proceed, if set, is waited on after started: the test looks at the
	// state while the call is in flight.
	proceed chan struct{}
	qp      uint32
}

func newFakeFabric() *fakeFabric {
	return &fakeFabric{specs: map[string]Spec{}, live: map[string]string{}, fail: map[string]error{}}
}

// begin records a call on the object the fabric names name (its
// address, unless it is a create_before_destroy replacement).
func (f *fakeFabric) begin(op string, name string) error {
	f.mu.Lock()
	f.calls = append(f.calls, op+" "+name)
	f.inFlight++
	f.maxIn = max(f.maxIn, f.inFlight)
	err := f.fail[name]
	f.mu.Unlock()
	if f.started != nil {
		f.started <- name
		if f.proceed != nil {
			<-f.proceed
		}
	}
	time.Sleep(f.delay)
	return err
}

func (f *fakeFabric) end() { f.mu.Lock(); f.inFlight--; f.mu.Unlock() }

func (f *fakeFabric) Create(_ context.Context, h Handle, s Spec, token string) (state.Facts, error) {
	defer f.end()
	if err := f.begin("create", h.Name); err != nil {
		return state.Facts{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.specs[h.Name] = s
	f.live[h.Name] = token
	f.qp++
	facts := state.Facts{Device: "rxe0", PortNum: 1, Status: "established"}
	if h.Addr.Kind == addrs.Endpoint {
		facts.QPNum = 16 + f.qp
	}
	return facts, nil
}

func (f *fakeFabric) Update(_ context.Context, h Handle, s Spec, changed []cty.Path) (state.Facts, error) {
	defer f.end()
	if err := f.begin("update", h.Name); err != nil {
		return state.Facts{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.specs[h.Name] = s
	return state.Facts{Device: "rxe0", Status: "established"}, nil
}

func (f *fakeFabric) Delete(_ context.Context, h Handle, token string) error {
	defer f.end()
	if err := f.begin("delete", h.Name); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.live[h.Name] == token {
		delete(f.live, h.Name)
	}
	return nil
}

func load(t testing.TB, src string) *config.Config {
	t.Helper()
	cfg, diags := config.NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(src)}, config.VarInputs{})
	if diags.HasErrors() {
		t.Fatalf("config: %v", diags)
	}
	return cfg
}

type env struct {
	t      testing.TB
	m      *state.Filesystem
	path   string
	fabric *fakeFabric
	out    *syncBuffer
	tokens atomic.Int64 // across runs, so that every token is unique
	still  time.Duration
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
	// onLine is called with each line as it is written.
	onLine func(string)
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.onLine != nil {
		s.onLine(strings.TrimRight(string(p), "\n"))
	}
	return s.b.Write(p)
}

func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func newEnv(t testing.TB) *env {
	path := filepath.Join(t.TempDir(), "rdmaform.rdmastate")
	return &env{t: t, m: state.NewFilesystem(state.LocalOptions{Path: path}), path: path, fabric: newFakeFabric(), out: &syncBuffer{}}
}

// current reads the state as another process would.
func (e *env) current() *state.State {
	e.t.Helper()
	m := state.NewFilesystem(state.LocalOptions{Path: e.path})
	if err := m.RefreshState(); err != nil {
		e.t.Fatal(err)
	}
	return m.State()
}

// run plans cfg against the current state and applies it.
func (e *env) run(ctx context.Context, cfg *config.Config, popts planner.Options, parallelism int) (*planner.Plan, *Report) {
	e.t.Helper()
	if err := e.m.RefreshState(); err != nil {
		e.t.Fatal(err)
	}
	prior := e.m.State()
	p, diags := planner.Make(ctx, cfg, prior, popts)
	if diags.HasErrors() {
		e.t.Fatalf("plan: %v", diags)
	}
	rec, err := e.m.OpenRecorder()
	if err != nil {
		e.t.Fatal(err)
	}
	r := Apply(ctx, p, Options{Fabric: e.fabric, Recorder: rec, Config: cfg, Prior: prior, Parallelism: parallelism, Progress: e.out,
		NewToken: func() string { return fmt.Sprintf("tok%d", e.tokens.Add(1)) }, StillInterval: e.still})
	if err := rec.Close(); err != nil {
		e.t.Fatal(err)
	}
	return p, r
}

func TestApplyCreatesInOrderAndRecords(t *testing.T) {
	e := newEnv(t)
	_, r := e.run(context.Background(), load(t, loopback), planner.Options{}, 10)
	if r.Failed() || r.Added != 5 || r.Changed != 0 || r.Destroyed != 0 {
		t.Fatalf("report %+v", r)
	}
	calls := strings.Join(e.fabric.calls, "\n")
	if !strings.HasPrefix(calls, "create protection_domain.rxe\ncreate listener.loop\n") {
		t.Fatalf("calls out of order:\n%s", calls)
	}
	if pd := e.fabric.specs["endpoint.client[2]"].Endpoint.PD; pd != "protection_domain.rxe" {
		t.Fatalf("endpoint spec pd = %q", pd)
	}
	st := e.current()
	if len(st.Objects) != 5 {
		t.Fatalf("state has %d objects", len(st.Objects))
	}
	o := st.Object(addrs.Instance{Resource: addrs.Resource{Kind: addrs.Endpoint, Name: "client"}, Key: addrs.IntKey(1)})
	if o.Facts.CreateToken == "" || o.Facts.QPNum == 0 || !strings.Contains(string(o.Attributes), `"pd":"protection_domain.rxe"`) {
		t.Fatalf("endpoint in state: %+v %s", o.Facts, o.Attributes)
	}
	if string(st.Outputs["port"].Value) != "7471" {
		t.Fatalf("output port = %s", st.Outputs["port"].Value)
	}
	if !strings.Contains(e.out.String(), "endpoint.client[0]: Creating...\n") ||
		!regexpMatch(`endpoint\.client\[\d\]: Creation complete after \d+m?s \[qp_num=\d+\]`, e.out.String()) {
		t.Fatalf("progress:\n%s", e.out.String())
	}

	// A second plan has nothing to do.
	if err := e.m.RefreshState(); err != nil {
		t.Fatal(err)
	}
	p, diags := planner.Make(context.Background(), load(t, loopback), e.m.State(), planner.Options{})
	if diags.HasErrors() || p.HasChanges() {
		t.Fatalf("second plan has changes: %v", diags)
	}
}

func TestEveryChangeIsDurableBeforeItIsReported(t *testing.T) {
	e := newEnv(t)
	var problems []string
	e.out.onLine = func(line string) {
		addr, rest, _ := strings.Cut(line, ": ")
		if !strings.HasPrefix(rest, "Creation complete") {
			return
		}
		st := state.NewFilesystem(state.LocalOptions{Path: e.path})
		if err := st.RefreshState(); err != nil {
			problems = append(problems, err.Error())
			return
		}
		a, _ := addrs.ParseInstance(addr)
		if st.State() == nil || st.State().Object(a) == nil {
			problems = append(problems, addr+" reported before it was in the state")
		}
	}
	e.run(context.Background(), load(t, loopback), planner.Options{}, 4)
	if len(problems) > 0 {
		t.Fatal(strings.Join(problems, "\n"))
	}
}

func TestParallelismBoundsCallsInFlight(t *testing.T) {
	e := newEnv(t)
	e.fabric.delay = 5 * time.Millisecond
	src := strings.Replace(loopback, "count   = 3", "count   = 40", 1)
	_, r := e.run(context.Background(), load(t, src), planner.Options{}, 4)
	if r.Failed() || r.Added != 42 {
		t.Fatalf("report %+v", r)
	}
	if e.fabric.maxIn > 4 || e.fabric.maxIn < 2 {
		t.Fatalf("max calls in flight %d, want 2..4", e.fabric.maxIn)
	}
}

func TestFailureSkipsDependentsWithOneNote(t *testing.T) {
	e := newEnv(t)
	e.fabric.fail["listener.loop"] = fmt.Errorf("rdma_listen: %w", syscall.EADDRINUSE)
	_, r := e.run(context.Background(), load(t, loopback), planner.Options{}, 10)
	if len(r.Errors) != 1 || r.Errors[0].Addr.String() != "listener.loop" || !errors.Is(r.Errors[0].Err, syscall.EADDRINUSE) {
		t.Fatalf("errors %+v", r.Errors)
	}
	if len(r.Skipped) != 1 || r.Skipped[0].Cause.String() != "listener.loop" || len(r.Skipped[0].Objects) != 3 {
		t.Fatalf("skipped %+v", r.Skipped)
	}
	if r.Added != 1 {
		t.Fatalf("added %d, want the PD only", r.Added)
	}
	st := e.current()
	if len(st.Objects) != 1 || st.Objects["protection_domain.rxe"] == nil {
		t.Fatalf("state keeps %d objects", len(st.Objects))
	}
	if _, ok := st.Outputs["port"]; ok {
		t.Fatal("an output of the listener that failed was recorded")
	}
}

// As Terraform's, a failed apply records the outputs that use nothing it
// left undone (constants, the objects it made), not the others.
func TestFailedApplyRecordsTheOutputsItCan(t *testing.T) {
	e := newEnv(t)
	e.fabric.fail["listener.loop"] = fmt.Errorf("rdma_listen: %w", syscall.EADDRINUSE)
	src := loopback + `
output "constant" {
  value = "c"
}
output "pd" {
  value = protection_domain.rxe.id
}
`
	_, r := e.run(context.Background(), load(t, src), planner.Options{}, 10)
	if len(r.Errors) != 1 {
		t.Fatalf("errors %+v", r.Errors)
	}
	st := e.current()
	for name, want := range map[string]string{"constant": `"c"`, "pd": `"protection_domain.rxe"`} {
		if o := st.Outputs[name]; o == nil || string(o.Value) != want {
			t.Errorf("output %s = %+v, want %s", name, o, want)
		}
	}
	if _, ok := st.Outputs["port"]; ok {
		t.Error("an output of the listener that failed was recorded")
	}
}

func TestInterruptFinishesInFlightAndStops(t *testing.T) {
	e := newEnv(t)
	e.fabric.started = make(chan string, 100)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for a := range e.fabric.started {
			if a == "listener.loop" {
				cancel()
			}
		}
	}()
	e.fabric.delay = 20 * time.Millisecond
	_, r := e.run(ctx, load(t, loopback), planner.Options{}, 10)
	close(e.fabric.started)
	if !r.Interrupted || r.Added != 2 || len(r.NotStarted) != 3 {
		t.Fatalf("report %+v", r)
	}
	if len(e.current().Objects) != 2 {
		t.Fatal("in-flight create not recorded")
	}
}

// Before the fabric is asked for an object, the state (as another process
// reads it, journal included) records it as being made, with the create
// token the fabric gets: a process killed during the call leaves what the
// next refresh needs to adopt it.
func TestCreateIsRecordedAsPendingFirst(t *testing.T) {
	e := newEnv(t)
	e.fabric.started = make(chan string) // each call waits for the check
	e.fabric.proceed = make(chan struct{})
	checked := make(chan error, 1)
	go func() {
		var err error
		for name := range e.fabric.started {
			if name != "listener.loop" {
				e.fabric.proceed <- struct{}{}
				continue
			}
			o := e.current().Objects[name]
			switch {
			case o == nil:
				err = fmt.Errorf("%s is not in the state while the fabric makes it", name)
			case !o.Facts.Pending || o.Facts.CreateToken == "" || o.Facts.Status != "creating":
				err = fmt.Errorf("%s is recorded as %+v while the fabric makes it", name, o.Facts)
			}
			e.fabric.proceed <- struct{}{}
		}
		checked <- err
	}()
	_, r := e.run(context.Background(), load(t, loopback), planner.Options{}, 10)
	close(e.fabric.started)
	if err := <-checked; err != nil {
		t.Fatal(err)
	}
	if r.Failed() {
		t.Fatalf("report %+v", r)
	}
	st := e.current()
	for a, o := range st.Objects {
		if o.Facts.Pending {
			t.Errorf("%s is still pending after it was made", a)
		}
		if tok := e.fabric.live[handleOf(o).Name]; tok != o.Facts.CreateToken {
			t.Errorf("%s: the state records token %q, the fabric got %q", a, o.Facts.CreateToken, tok)
		}
	}
}

// An apply stopped before it starts anything leaves the state as it was:
// the objects it recorded as being made are recorded as not made, and a
// replacement that destroys first keeps its object's record (the agent
// still holds it).
func TestStoppedApplyLeavesTheStateAsItWas(t *testing.T) {
	e := newEnv(t)
	e.run(context.Background(), load(t, loopback), planner.Options{}, 10)
	before := e.current()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	src := strings.Replace(loopback, "port    = 7471", "port    = 7472", 1) // replaces the listener, destroying first
	src = strings.Replace(src, "count   = 3", "count   = 5", 1)             // and makes two endpoints
	_, r := e.run(ctx, load(t, src), planner.Options{}, 10)
	if !r.Interrupted || len(r.NotStarted) == 0 {
		t.Fatalf("report %+v", r)
	}
	after := e.current()
	if len(after.Objects) != len(before.Objects) {
		t.Fatalf("the state holds %v, want %v", after.Addresses(), before.Addresses())
	}
	for a, o := range after.Objects {
		if o.Facts.Pending || o.Facts.CreateToken != before.Objects[a].Facts.CreateToken {
			t.Errorf("%s is recorded as %+v, want as before: %+v", a, o.Facts, before.Objects[a].Facts)
		}
	}
}

// A create that fails leaves no pending object in the state.
func TestFailedCreateLeavesNothingPending(t *testing.T) {
	e := newEnv(t)
	e.fabric.fail["endpoint.client[1]"] = errors.New("rdma_connect: connection refused (ECONNREFUSED)")
	_, r := e.run(context.Background(), load(t, loopback), planner.Options{}, 10)
	if !r.Failed() {
		t.Fatalf("report %+v", r)
	}
	if o := e.current().Objects["endpoint.client[1]"]; o != nil {
		t.Errorf("the failed create left %+v in the state", o.Facts)
	}
}

// Once the fabric says it is gone (the agent exited), the walk starts
// nothing more: the operations left would all fail the same way.
func TestFabricGoneStopsTheWalk(t *testing.T) {
	e := newEnv(t)
	gone := fmt.Errorf("the agent stopped: %w", ErrFabricGone)
	e.fabric.fail["endpoint.client[0]"] = gone
	e.fabric.fail["endpoint.client[1]"] = gone
	e.fabric.fail["endpoint.client[2]"] = gone
	_, r := e.run(context.Background(), load(t, loopback), planner.Options{}, 1)
	if !errors.Is(r.FabricGone, ErrFabricGone) || len(r.Errors) != 1 || len(r.NotStarted) != 2 || r.Added != 2 {
		t.Fatalf("report %+v", r)
	}
	if n := e.fabric.endpointCreates(); n != 1 {
		t.Errorf("%d endpoint creates were started; after the first said the fabric is gone, none should be (calls %v)", n, e.fabric.calls)
	}
}

// endpointCreates counts the endpoint creates the fabric was asked for.
func (f *fakeFabric) endpointCreates() int {
	n := 0
	for _, c := range f.calls {
		if strings.HasPrefix(c, "create endpoint.") {
			n++
		}
	}
	return n
}

func TestDestroyDeletesInReverseOrder(t *testing.T) {
	e := newEnv(t)
	cfg := load(t, loopback)
	e.run(context.Background(), cfg, planner.Options{}, 10)
	e.fabric.calls = nil
	_, r := e.run(context.Background(), cfg, planner.Options{Destroy: true}, 10)
	if r.Failed() || r.Destroyed != 5 {
		t.Fatalf("report %+v", r)
	}
	calls := e.fabric.calls
	if calls[len(calls)-1] != "delete protection_domain.rxe" || calls[len(calls)-2] != "delete listener.loop" {
		t.Fatalf("delete order %v", calls)
	}
	if len(e.fabric.live) != 0 {
		t.Fatalf("left alive: %v", e.fabric.live)
	}
	st := e.current()
	if len(st.Objects) != 0 || len(st.Outputs) != 0 {
		t.Fatalf("state keeps %d objects, %d outputs", len(st.Objects), len(st.Outputs))
	}
}

func TestUpdateAndReplace(t *testing.T) {
	e := newEnv(t)
	e.run(context.Background(), load(t, loopback), planner.Options{}, 10)
	before := e.current()
	src := strings.Replace(loopback, "reconnect {}", "reconnect {\n    max_backoff = \"10s\"\n  }", 1)
	src = strings.Replace(src, "port    = 7471", "port    = 7472", 1)
	e.fabric.calls = nil
	_, r := e.run(context.Background(), load(t, src), planner.Options{}, 10)
	// The listener's port forces its replacement, and the endpoints' port
	// (from the listener) forces theirs.
	if r.Failed() || r.Added != 4 || r.Destroyed != 4 {
		t.Fatalf("report %+v\ncalls %v", r, e.fabric.calls)
	}
	after := e.current()
	a := "endpoint.client[0]"
	if before.Objects[a].Facts.CreateToken == after.Objects[a].Facts.CreateToken {
		t.Fatal("replaced endpoint kept its token")
	}

	src2 := strings.Replace(src, `max_backoff = "10s"`, `max_backoff = "20s"`, 1)
	e.fabric.calls = nil
	_, r = e.run(context.Background(), load(t, src2), planner.Options{}, 10)
	if r.Failed() || r.Changed != 3 || r.Added != 0 {
		t.Fatalf("report %+v", r)
	}
	if got := e.fabric.specs[a].Endpoint.Reconnect.MaxBackoff; got != 20*time.Second {
		t.Fatalf("updated spec max_backoff %v", got)
	}
	if e.current().Objects[a].Facts.CreateToken != after.Objects[a].Facts.CreateToken {
		t.Fatal("update lost the create token")
	}
	if !strings.Contains(e.out.String(), "endpoint.client[1]: Modifying... [qp_num=") {
		t.Fatalf("progress:\n%s", e.out.String())
	}
}

func TestDriftIsHealed(t *testing.T) {
	e := newEnv(t)
	cfg := load(t, loopback)
	e.run(context.Background(), cfg, planner.Options{}, 10)
	delete(e.fabric.live, "endpoint.client[1]")
	p, r := e.run(context.Background(), cfg, planner.Options{Refresher: liveFrom(e.fabric)}, 10)
	if len(p.Drift) != 1 || r.Added != 1 || r.Failed() {
		t.Fatalf("drift %v report %+v", p.Drift, r)
	}
	p, _ = e.run(context.Background(), cfg, planner.Options{Refresher: liveFrom(e.fabric)}, 10)
	if p.HasChanges() {
		t.Fatal("still changes after healing")
	}
}

type liveFabric struct{ f *fakeFabric }

func liveFrom(f *fakeFabric) liveFabric { return liveFabric{f} }

func (l liveFabric) Live(context.Context) (map[string]planner.LiveObject, error) {
	l.f.mu.Lock()
	defer l.f.mu.Unlock()
	out := map[string]planner.LiveObject{}
	for a, tok := range l.f.live {
		out[a] = planner.LiveObject{Token: tok, Status: "established"}
	}
	return out, nil
}
