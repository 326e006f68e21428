package command

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/apply"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/state"
)

// Three hosts: a listener on each storage agent, endpoints on the compute
// agent reaching the first storage host's.
const fabricTestConfig = `
listener "a" {
  address = "10.77.1.1"
  port    = 7471
}

listener "b" {
  address = "10.77.1.2"
  port    = 7471
}

endpoint "e" {
  count   = 2
  address = listener.a.address
  port    = listener.a.port
}
`

var fabricTestHosts = map[string]string{"listener.a": "agent.s1", "listener.b": "agent.s2", "endpoint.e": "agent.compute"}

// agentsTest is a fabric of remote agents for the commands' tests: a
// memFabric per agent, reached by ConnectRemote, and a configuration hook
// putting the objects on them as agent blocks and agent meta-arguments
// would.
type agentsTest struct {
	mu     sync.Mutex
	agents map[string]*memFabric
	hostOf map[string]string
	// down are the agents that do not answer when dialled; silent, those
	// whose Live fails.
	down, silent map[string]bool
	dialled      []string
	// liveGate, when set, is waited on by each agent's Live, so that a
	// test can see them all in flight at once.
	liveGate func(agent string) error
}

func newAgentsTest(hostOf map[string]string) *agentsTest {
	at := &agentsTest{agents: map[string]*memFabric{}, hostOf: hostOf, down: map[string]bool{}, silent: map[string]bool{}}
	for _, k := range hostOf {
		if at.agents[k] == nil {
			at.agents[k] = newMemFabric()
		}
	}
	return at
}

func agentAddress(key string) string {
	return map[string]string{"agent.s1": "10.77.1.1:7470", "agent.s2": "10.77.1.2:7470", "agent.compute": "10.77.1.3:7470"}[key]
}

// meta is a Meta whose commands reach the test's agents (and a local one,
// which no object uses).
func (at *agentsTest) meta(t *testing.T) Meta {
	m := withFabric(t, newMemFabric())
	m.configHook = func(cfg *config.Config) {
		cfg.Agents = map[string]*config.Agent{}
		for _, k := range []string{"agent.s1", "agent.s2", "agent.compute"} {
			cfg.Agents[k] = &config.Agent{Key: k, Address: agentAddress(k)}
		}
		for _, inst := range cfg.Instances {
			inst.Agent = at.hostOf[inst.Addr.Resource.String()]
		}
	}
	m.ConnectRemote = func(_ context.Context, a *config.Agent) (*fabricConn, error) {
		at.mu.Lock()
		defer at.mu.Unlock()
		at.dialled = append(at.dialled, a.Key)
		if at.down[a.Key] {
			return nil, fmt.Errorf("dial tcp %s: connect: connection refused", a.Address)
		}
		r := agentRefresher{at: at, key: a.Key, memFabric: at.agents[a.Key]}
		return &fabricConn{Refresher: r, Fabric: at.agents[a.Key], CreateBeforeDestroy: true}, nil
	}
	return m
}

// agentRefresher is one agent's memFabric as its refresher, which may be
// silent or held at the test's gate.
type agentRefresher struct {
	*memFabric
	at  *agentsTest
	key string
}

func (r agentRefresher) Live(ctx context.Context) (map[string]planner.LiveObject, error) {
	r.at.mu.Lock()
	silent, gate := r.at.silent[r.key], r.at.liveGate
	r.at.mu.Unlock()
	if silent {
		return nil, errors.New("rpc timed out")
	}
	if gate != nil {
		if err := gate(r.key); err != nil {
			return nil, err
		}
	}
	return r.memFabric.Live(ctx)
}

func (at *agentsTest) wasDialled(key string) bool {
	at.mu.Lock()
	defer at.mu.Unlock()
	for _, k := range at.dialled {
		if k == key {
			return true
		}
	}
	return false
}

func readState(t *testing.T, dir string) *state.State {
	t.Helper()
	m := state.NewFilesystem(state.LocalOptions{Path: filepath.Join(dir, "rdmaform.rdmastate")})
	if err := m.RefreshState(); err != nil {
		t.Fatal(err)
	}
	return m.State()
}

// Apply and destroy across agents: each object is made on its agent and
// recorded with it; destroy empties every agent.
func TestApplyAcrossAgents(t *testing.T) {
	at := newAgentsTest(fabricTestHosts)
	meta := at.meta(t)
	dir := planDir(t, fabricTestConfig)
	code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color")
	if code != 0 || !strings.Contains(out, "Apply complete! Resources: 4 added") {
		t.Fatalf("apply: %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(out, "  + endpoint \"e\" {\n        agent = agent.compute\n") {
		t.Errorf("the plan does not show the agents:\n%s", out)
	}
	for k, n := range map[string]int{"agent.s1": 1, "agent.s2": 1, "agent.compute": 2} {
		if got := len(at.agents[k].live); got != n {
			t.Errorf("%s holds %v, want %d objects", k, at.agents[k].live, n)
		}
	}
	for a, o := range readState(t, dir).Objects {
		if want := fabricTestHosts[o.Addr.Resource.String()]; o.Agent != want {
			t.Errorf("%s recorded on %q, want %q", a, o.Agent, want)
		}
	}
	if code, out, errs := meta.cmd(t, dir, "", "plan", "-detailed-exitcode"); code != 0 || !strings.Contains(out, "No changes.") {
		t.Fatalf("plan after apply: %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = meta.cmd(t, dir, "", "destroy", "-auto-approve")
	if code != 0 || !strings.Contains(out, "Destroy complete! Resources: 4 destroyed.") {
		t.Fatalf("destroy: %d\n%s\n%s", code, out, errs)
	}
	for k, f := range at.agents {
		if len(f.live) != 0 {
			t.Errorf("%s keeps %v", k, f.live)
		}
	}
}

// Plan reads every agent at once: each agent's Live waits until every
// agent's is in flight.
func TestPlanRefreshesAgentsConcurrently(t *testing.T) {
	at := newAgentsTest(fabricTestHosts)
	meta := at.meta(t)
	dir := planDir(t, fabricTestConfig)
	if code, _, errs := meta.cmd(t, dir, "", "apply", "-auto-approve"); code != 0 {
		t.Fatalf("apply: %s", errs)
	}
	var mu sync.Mutex
	entered := map[string]bool{}
	all := make(chan struct{})
	at.liveGate = func(agent string) error {
		mu.Lock()
		entered[agent] = true
		if len(entered) == 3 {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
			return nil
		case <-time.After(time.Minute): // a bound, not a synchronisation
			return errors.New("the other agents were never asked while this one answered: agents are read one after another")
		}
	}
	code, out, errs := meta.cmd(t, dir, "", "plan", "-detailed-exitcode")
	if code != 0 || !strings.Contains(out, "No changes.") {
		t.Fatalf("plan: %d\n%s\n%s", code, out, errs)
	}
	if len(entered) != 3 {
		t.Fatalf("agents read: %v", entered)
	}
}

// An agent that does not answer is named, with its address and what to
// do, and its objects are never read as gone; -refresh=false, or -target
// on objects elsewhere, plan all the same.
func TestPlanUnreachableAgentIsNotGone(t *testing.T) {
	for _, how := range []string{"down", "silent"} {
		t.Run(how, func(t *testing.T) {
			at := newAgentsTest(fabricTestHosts)
			meta := at.meta(t)
			dir := planDir(t, fabricTestConfig)
			if code, _, errs := meta.cmd(t, dir, "", "apply", "-auto-approve"); code != 0 {
				t.Fatalf("apply: %s", errs)
			}
			if how == "down" {
				at.down["agent.s2"] = true
			} else {
				at.silent["agent.s2"] = true
			}
			code, out, errs := meta.cmd(t, dir, "", "plan", "-no-color")
			if code != 1 || !strings.Contains(errs, "agent.s2 (10.77.1.2:7470) does not answer") ||
				!strings.Contains(errs, "-refresh=false") || !strings.Contains(errs, "-target") || strings.Contains(errs, "rpc error") {
				t.Fatalf("plan with agent.s2 %s: %d\n%s\n%s", how, code, out, errs)
			}
			if strings.Contains(out, "has been deleted") || strings.Contains(out, "will be created") {
				t.Fatalf("objects read as gone:\n%s", out)
			}
			code, out, errs = meta.cmd(t, dir, "", "plan", "-refresh=false", "-detailed-exitcode")
			if code != 0 || !strings.Contains(out, "No changes.") {
				t.Fatalf("-refresh=false: %d\n%s\n%s", code, out, errs)
			}
			at.dialled = nil
			code, out, errs = meta.cmd(t, dir, "", "plan", "-target=endpoint.e", "-detailed-exitcode")
			if code != 0 || !strings.Contains(out, "No changes.") || at.wasDialled("agent.s2") || !at.wasDialled("agent.s1") || !at.wasDialled("agent.compute") {
				t.Fatalf("-target on the other agents: %d %v\n%s\n%s", code, at.dialled, out, errs)
			}
			// Its objects are still recorded, on their agent.
			if o := readState(t, dir).Objects["listener.b"]; o == nil || o.Agent != "agent.s2" {
				t.Fatalf("listener.b in the state: %+v", o)
			}
		})
	}
}

// A host whose agent goes during apply fails its own objects: the other
// hosts' are made and recorded, and the summary names the host.
func TestApplyAgentGoneMidWalk(t *testing.T) {
	at := newAgentsTest(fabricTestHosts)
	meta := at.meta(t)
	dir := planDir(t, fabricTestConfig)
	at.agents["agent.s2"].fail["listener.b"] = fmt.Errorf("the agent at 10.77.1.2:7470 stopped answering: %w", apply.ErrFabricGone)
	code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color")
	if code != 1 || !strings.Contains(errs, "Stopped on agent.s2 (10.77.1.2:7470): its agent stopped answering") {
		t.Fatalf("apply: %d\n%s\n%s", code, out, errs)
	}
	st := readState(t, dir)
	for _, a := range []string{"listener.a", "endpoint.e[0]", "endpoint.e[1]"} {
		if o := st.Objects[a]; o == nil || o.Facts.CreateToken == "" || o.Facts.Pending {
			t.Errorf("%s not recorded as made: %+v", a, o)
		}
	}
	if o := st.Objects["listener.b"]; o != nil {
		t.Errorf("listener.b recorded: %+v", o)
	}
}

// The state's objects on remote agents may be planned from any host; the
// local agent's only from its own.
func TestStateHostRefusalIsForLocalObjectsOnly(t *testing.T) {
	at := newAgentsTest(fabricTestHosts)
	meta := at.meta(t)
	dir := planDir(t, fabricTestConfig)
	if code, _, errs := meta.cmd(t, dir, "", "apply", "-auto-approve"); code != 0 {
		t.Fatalf("apply: %s", errs)
	}
	st := readState(t, dir)
	for _, o := range st.Objects {
		o.Facts.AgentHost = "storage-host-elsewhere"
	}
	var b strings.Builder
	if !stateOnThisHost(st, Meta{Err: &b}) {
		t.Fatalf("remote agents' objects refused: %s", b.String())
	}
	st.Objects["listener.a"].Agent = ""
	if stateOnThisHost(st, Meta{Err: io.Discard}) {
		t.Fatal("a local object of another host accepted")
	}
}
