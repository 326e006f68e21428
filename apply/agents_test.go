package apply

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/state"
	"github.com/zclconf/go-cty/cty"
)

// Three hosts: a listener on each storage agent, endpoints on the compute
// agent reaching the first.
const threeHosts = `
listener "a" {
  address = "10.77.1.1"
  port    = 7471
}

listener "b" {
  address = "10.77.1.2"
  port    = 7471
}

listener "b2" {
  address = "10.77.1.2"
  port    = 7472
}

endpoint "e" {
  count   = 3
  address = listener.a.address
  port    = listener.a.port

  reconnect {}
}
`

var hostOf = map[string]string{"listener.a": "agent.s1", "listener.b": "agent.s2", "listener.b2": "agent.s2", "endpoint.e": "agent.compute"}

func onHosts(cfg *config.Config) *config.Config {
	cfg.Agents = map[string]*config.Agent{}
	for _, k := range []string{"agent.s1", "agent.s2", "agent.compute"} {
		cfg.Agents[k] = &config.Agent{Key: k}
	}
	for _, inst := range cfg.Instances {
		inst.Agent = hostOf[inst.Addr.Resource.String()]
	}
	return cfg
}

// agentRouter is a fabric of several agents, each a fakeFabric, routing
// each call by its handle's agent, as command's fabric set does. log
// holds every call in the order made, across agents; before, if set,
// runs before the call on "AGENT NAME" is made.
type agentRouter struct {
	agents map[string]*fakeFabric
	mu     sync.Mutex
	log    []string
	before map[string]func()
	after  map[string]func(error)
}

func newAgentRouter(keys ...string) *agentRouter {
	r := &agentRouter{agents: map[string]*fakeFabric{}, before: map[string]func(){}, after: map[string]func(error){}}
	for _, k := range keys {
		r.agents[k] = newFakeFabric()
	}
	return r
}

func (r *agentRouter) call(op string, h Handle, do func(f *fakeFabric) error) error {
	f := r.agents[h.Agent]
	if f == nil {
		return fmt.Errorf("no agent %q", h.Agent)
	}
	if b := r.before[h.Agent+" "+h.Name]; b != nil {
		b()
	}
	err := do(f)
	r.mu.Lock()
	r.log = append(r.log, op+" "+h.Agent+" "+h.Name)
	r.mu.Unlock()
	if a := r.after[h.Agent+" "+h.Name]; a != nil {
		a(err)
	}
	return err
}

func (r *agentRouter) Create(ctx context.Context, h Handle, s Spec, token string) (facts state.Facts, err error) {
	err = r.call("create", h, func(f *fakeFabric) (err error) { facts, err = f.Create(ctx, h, s, token); return err })
	return facts, err
}

func (r *agentRouter) Update(ctx context.Context, h Handle, s Spec, changed []cty.Path) (facts state.Facts, err error) {
	err = r.call("update", h, func(f *fakeFabric) (err error) { facts, err = f.Update(ctx, h, s, changed); return err })
	return facts, err
}

func (r *agentRouter) Delete(ctx context.Context, h Handle, token string) error {
	return r.call("delete", h, func(f *fakeFabric) error { return f.Delete(ctx, h, token) })
}

// index is where "op agent name" is in the log, -1 if absent.
func (r *agentRouter) index(call string) int { return slices.Index(r.log, call) }

func (e *env) runOn(f Fabric, cfg *config.Config, popts planner.Options) (*planner.Plan, *Report) {
	e.t.Helper()
	if err := e.m.RefreshState(); err != nil {
		e.t.Fatal(err)
	}
	prior := e.m.State()
	p, diags := planner.Make(context.Background(), cfg, prior, popts)
	if diags.HasErrors() {
		e.t.Fatalf("plan: %v", diags)
	}
	rec, err := e.m.OpenRecorder()
	if err != nil {
		e.t.Fatal(err)
	}
	r := Apply(context.Background(), p, Options{Fabric: f, Recorder: rec, Config: cfg, Prior: prior, Progress: e.out,
		NewToken: func() string { return fmt.Sprintf("tok%d", e.tokens.Add(1)) }})
	if err := rec.Close(); err != nil {
		e.t.Fatal(err)
	}
	return p, r
}

// One graph across hosts: each object is made through its own agent, a
// listener before the endpoints of another host that reach it, and
// destroyed in reverse; the state records each object's agent.
func TestApplyAndDestroyAcrossAgents(t *testing.T) {
	e := newEnv(t)
	fab := newAgentRouter("agent.s1", "agent.s2", "agent.compute")
	_, r := e.runOn(fab, onHosts(load(t, threeHosts)), planner.Options{})
	if r.Failed() || r.Added != 6 {
		t.Fatalf("report %+v", r)
	}
	if n := len(fab.agents["agent.compute"].live); n != 3 || len(fab.agents["agent.s1"].live) != 1 || len(fab.agents["agent.s2"].live) != 2 {
		t.Fatalf("made where: s1 %v s2 %v compute %v", fab.agents["agent.s1"].live, fab.agents["agent.s2"].live, fab.agents["agent.compute"].live)
	}
	for i := range 3 {
		if fab.index(fmt.Sprintf("create agent.compute endpoint.e[%d]", i)) < fab.index("create agent.s1 listener.a") {
			t.Fatalf("an endpoint made before the listener it reaches: %v", fab.log)
		}
	}
	for k, o := range e.current().Objects {
		if want := hostOf[o.Addr.Resource.String()]; o.Agent != want {
			t.Errorf("%s recorded on %q, want %q", k, o.Agent, want)
		}
	}

	fab.log = nil
	_, r = e.runOn(fab, onHosts(load(t, threeHosts)), planner.Options{Destroy: true})
	if r.Failed() || r.Destroyed != 6 {
		t.Fatalf("destroy report %+v", r)
	}
	for i := range 3 {
		if fab.index(fmt.Sprintf("delete agent.compute endpoint.e[%d]", i)) > fab.index("delete agent.s1 listener.a") {
			t.Fatalf("the listener destroyed before an endpoint of another host reaching it: %v", fab.log)
		}
	}
	for k, f := range fab.agents {
		if len(f.live) != 0 {
			t.Errorf("%s keeps %v", k, f.live)
		}
	}
}

// An object put on another agent is destroyed on the old one and made on
// the new one.
func TestReplacementMovesAgents(t *testing.T) {
	e := newEnv(t)
	fab := newAgentRouter("agent.s1", "agent.s2", "agent.compute")
	e.runOn(fab, onHosts(load(t, threeHosts)), planner.Options{})
	hostOf["listener.b2"] = "agent.s1"
	defer func() { hostOf["listener.b2"] = "agent.s2" }()
	fab.log = nil
	_, r := e.runOn(fab, onHosts(load(t, threeHosts)), planner.Options{})
	if r.Failed() || r.Added != 1 || r.Destroyed != 1 {
		t.Fatalf("report %+v", r)
	}
	if want := []string{"delete agent.s2 listener.b2", "create agent.s1 listener.b2"}; !slices.Equal(fab.log, want) {
		t.Fatalf("calls %v, want %v", fab.log, want)
	}
	if o := e.current().Objects["listener.b2"]; o.Agent != "agent.s1" {
		t.Fatalf("recorded on %q", o.Agent)
	}
}

// A host whose agent goes mid-apply fails its own objects only: the
// others' complete and are recorded, and the report names the host.
func TestAgentGoneFailsItsObjectsOnly(t *testing.T) {
	e := newEnv(t)
	fab := newAgentRouter("agent.s1", "agent.s2", "agent.compute")
	gone := fmt.Errorf("agent.s2 stopped answering: %w", ErrFabricGone)
	fab.agents["agent.s2"].fail["listener.b"] = gone
	fab.agents["agent.s2"].fail["listener.b2"] = gone
	// listener.a completes only once s2 has failed, so that the endpoints
	// reaching it start after: a walk stopped by s2 would not start them.
	s2Failed := make(chan struct{})
	var once sync.Once
	for _, name := range []string{"listener.b", "listener.b2"} {
		fab.after["agent.s2 "+name] = func(err error) {
			if errors.Is(err, ErrFabricGone) {
				once.Do(func() { close(s2Failed) })
			}
		}
	}
	fab.before["agent.s1 listener.a"] = func() { <-s2Failed }
	_, r := e.runOn(fab, onHosts(load(t, threeHosts)), planner.Options{})
	if !errors.Is(r.FabricGone, ErrFabricGone) || !slices.Equal(r.GoneAgents, []string{"agent.s2"}) {
		t.Fatalf("report %+v", r)
	}
	if r.Added != 4 || len(r.Errors)+len(r.NotStarted) != 2 {
		t.Fatalf("the other hosts' 4 objects made, s2's 2 failed or not started: %+v", r)
	}
	st := e.current()
	for _, a := range []string{"listener.a", "endpoint.e[0]", "endpoint.e[1]", "endpoint.e[2]"} {
		if o := st.Objects[a]; o == nil || o.Facts.CreateToken == "" || o.Agent != hostOf[o.Addr.Resource.String()] {
			t.Errorf("%s not recorded as made: %+v", a, o)
		}
	}
	for _, a := range []string{"listener.b", "listener.b2"} {
		if o := st.Objects[a]; o != nil {
			t.Errorf("%s, on the agent gone, recorded: %+v", a, o)
		}
	}
	if n := strings.Count(strings.Join(fab.log, "\n"), "agent.s2"); n > 2 {
		t.Errorf("%d calls on the agent gone: %v", n, fab.log)
	}
}

// A create_before_destroy replacement moving an object to another agent
// makes it on the new agent first, then destroys the old one on its own;
// an apply stopped in between leaves the old one recorded as deposed on
// its agent, where the next apply destroys it.
func TestCreateBeforeDestroyAcrossAgents(t *testing.T) {
	src := strings.Replace(threeHosts, "  port    = 7472\n", "  port    = 7472\n\n  lifecycle {\n    create_before_destroy = true\n  }\n", 1)
	e := newEnv(t)
	fab := newAgentRouter("agent.s1", "agent.s2", "agent.compute")
	e.runOn(fab, onHosts(load(t, src)), planner.Options{})
	hostOf["listener.b2"] = "agent.s1"
	defer func() { hostOf["listener.b2"] = "agent.s2" }()
	fab.log = nil
	fab.agents["agent.s2"].fail["listener.b2"] = errors.New("rdma_destroy_id: EBUSY")
	_, r := e.runOn(fab, onHosts(load(t, src)), planner.Options{})
	if len(r.Errors) != 1 || r.Added != 1 {
		t.Fatalf("report %+v", r)
	}
	if len(fab.log) != 2 || !strings.HasPrefix(fab.log[0], "create agent.s1 listener.b2") || fab.log[1] != "delete agent.s2 listener.b2" {
		t.Fatalf("calls %v", fab.log)
	}
	o := e.current().Objects["listener.b2"]
	if o.Agent != "agent.s1" || o.Facts.Deposed == nil || o.Facts.Deposed.Agent != "agent.s2" {
		t.Fatalf("recorded %+v deposed %+v", o, o.Facts.Deposed)
	}
	delete(fab.agents["agent.s2"].fail, "listener.b2")
	fab.log = nil
	_, r = e.runOn(fab, onHosts(load(t, src)), planner.Options{})
	if r.Failed() || r.Destroyed != 1 || len(fab.log) != 1 || fab.log[0] != "delete agent.s2 listener.b2" {
		t.Fatalf("report %+v calls %v", r, fab.log)
	}
	if o := e.current().Objects["listener.b2"]; o.Facts.Deposed != nil || o.Agent != "agent.s1" {
		t.Fatalf("recorded %+v", o)
	}
}
