package planner

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/config"
)

// onAgents puts cfg's objects on agents, as the agent meta-argument would:
// every instance of a block named in agents on that agent, the others on
// the local one. The configuration declares the agents of testAgents.
func onAgents(cfg *config.Config, agents map[string]string) *config.Config {
	withAgents(cfg)
	for _, inst := range cfg.Instances {
		inst.Agent = agents[inst.Addr.Resource.String()]
	}
	return cfg
}

var testAgents = []string{"agent.compute", "agent.storage"}

// withAgents gives cfg the agent blocks of testAgents.
func withAgents(cfg *config.Config) *config.Config {
	cfg.Agents = map[string]*config.Agent{}
	for _, k := range testAgents {
		cfg.Agents[k] = &config.Agent{Key: k, Address: "127.0.0.1:7470"}
	}
	return cfg
}

var twoHosts = map[string]string{"protection_domain.rxe": "agent.storage", "listener.loop": "agent.storage", "endpoint.client": "agent.compute"}

// An object's agent is part of what it is: the plan carries it, and a
// configuration putting an object on another agent replaces it (destroyed
// through the agent holding it, made through the new one).
func TestAgentChangeForcesReplacement(t *testing.T) {
	cfg := onAgents(load(t, loopback), twoHosts)
	p := mustPlan(t, cfg, nil, Options{})
	for _, c := range p.Changes {
		if want := twoHosts[c.Addr.Resource.String()]; c.Agent != want || c.PriorAgent != "" {
			t.Errorf("%s: create on %q (prior %q), want %q", c.Addr, c.Agent, c.PriorAgent, want)
		}
	}
	st := applied(t, p)
	if o := st.Objects["endpoint.client[1]"]; o.Agent != "agent.compute" {
		t.Fatalf("applied state: %+v", o)
	}
	if p := mustPlan(t, onAgents(load(t, loopback), twoHosts), st, Options{}); p.HasChanges() {
		t.Fatalf("the same agents: %s", actions(p))
	}

	moved := map[string]string{"protection_domain.rxe": "agent.storage", "listener.loop": "agent.storage", "endpoint.client": "agent.storage"}
	p = mustPlan(t, onAgents(load(t, loopback), moved), st, Options{})
	c := p.Change(mustAddr(t, "endpoint.client[0]"))
	if c == nil || c.Action != DeleteThenCreate || c.Reason != ReasonCannotUpdate || !c.AgentChanged() || c.PriorAgent != "agent.compute" || c.Agent != "agent.storage" {
		t.Fatalf("an endpoint moved to another agent: %+v\n%s", c, actions(p))
	}
	if c := p.Change(mustAddr(t, "listener.loop")); c.Action != NoOp {
		t.Fatalf("the listener stays: %s", actions(p))
	}

	// Back to the local agent: replaced too.
	p = mustPlan(t, withAgents(load(t, loopback)), st, Options{})
	if c := p.Change(mustAddr(t, "listener.loop")); c.Action != DeleteThenCreate || c.PriorAgent != "agent.storage" || c.Agent != "" {
		t.Fatalf("a listener moved to the local agent: %+v", c)
	}

	// Destroy goes through the agent holding each object.
	p = mustPlan(t, withAgents(load(t, loopback)), st, Options{Destroy: true})
	for _, c := range p.Changes {
		if want := twoHosts[c.Addr.Resource.String()]; c.Action != Delete || c.Agent != want || c.PriorAgent != want {
			t.Errorf("%s: destroy %s on %q, want %q", c.Addr, c.Action, c.Agent, want)
		}
	}
}

// A moved object keeps its agent: moving its address changes nothing
// unless the configuration also puts it on another agent.
func TestMovedObjectKeepsItsAgent(t *testing.T) {
	const before = `
listener "old" {
  address = "10.77.0.1"
  port    = 7471
}
`
	const after = `
listener "loop" {
  address = "10.77.0.1"
  port    = 7471
}

moved {
  from = listener.old
  to   = listener.loop
}
`
	st := applied(t, mustPlan(t, onAgents(load(t, before), map[string]string{"listener.old": "agent.storage"}), nil, Options{}))
	p := mustPlan(t, onAgents(load(t, after), map[string]string{"listener.loop": "agent.storage"}), st, Options{})
	if c := p.Change(mustAddr(t, "listener.loop")); c == nil || c.Action != NoOp || !c.Moved() || c.Agent != "agent.storage" {
		t.Fatalf("moved on its agent: %+v\n%s", c, actions(p))
	}
	p = mustPlan(t, onAgents(load(t, after), map[string]string{"listener.loop": "agent.compute"}), st, Options{})
	if c := p.Change(mustAddr(t, "listener.loop")); c == nil || c.Action != DeleteThenCreate || c.PriorAgent != "agent.storage" {
		t.Fatalf("moved to another agent: %+v\n%s", c, actions(p))
	}
}

// agentsRefresher serves what each agent holds, reading only the agents
// in read (all when nil).
type agentsRefresher struct {
	live map[string]LiveObject
	read map[string]bool
}

func (r agentsRefresher) Live(context.Context) (map[string]LiveObject, error) {
	out := map[string]LiveObject{}
	for k, lo := range r.live {
		if r.Reads(lo.Agent) {
			out[k] = lo
		}
	}
	return out, nil
}

func (r agentsRefresher) Reads(agent string) bool { return r.read == nil || r.read[agent] }

// The refresh finds each object on its own agent: one held by another
// agent under its name is not it. Objects of an agent the refresher did
// not read are as the state records them, never gone.
func TestRefreshAcrossAgents(t *testing.T) {
	cfg := onAgents(load(t, loopback), twoHosts)
	st := applied(t, mustPlan(t, cfg, nil, Options{}))
	live := map[string]LiveObject{}
	for k, o := range st.Objects {
		live[k] = LiveObject{Token: o.Facts.CreateToken, Status: "established", Agent: o.Agent}
	}
	if p := mustPlan(t, cfg, st, Options{Refresher: agentsRefresher{live: live}}); p.HasChanges() || len(p.Drift) > 0 {
		t.Fatalf("every object on its agent: %s %v", actions(p), p.Drift)
	}
	live["endpoint.client[0]"] = LiveObject{Token: "tok-endpoint.client[0]", Status: "established", Agent: "agent.storage"}
	p := mustPlan(t, cfg, st, Options{Refresher: agentsRefresher{live: live}})
	if len(p.Drift) != 1 || p.Drift[0].Addr.String() != "endpoint.client[0]" || !p.Drift[0].Deleted() {
		t.Fatalf("an object held by another agent is not the state's: %v", p.Drift)
	}
	// Only the compute agent read: the storage objects stay, though the
	// refresher's answer holds none of them.
	p = mustPlan(t, cfg, st, Options{Refresher: agentsRefresher{live: live, read: map[string]bool{"agent.compute": true}}})
	for _, dr := range p.Drift {
		if twoHosts[dr.Addr.Resource.String()] == "agent.storage" {
			t.Errorf("%s, on an agent not read, drifted", dr.Addr)
		}
	}
	if c := p.Change(mustAddr(t, "listener.loop")); c == nil || c.Action != NoOp {
		t.Fatalf("the listener of an agent not read: %s", actions(p))
	}
}

// Each object's devices are its own agent's: the plan asks the agent that
// is to make it.
func TestDeviceChecksAskEachObjectsAgent(t *testing.T) {
	cfg := onAgents(load(t, loopback), twoHosts)
	storage := fakeDevices{devices: []Device{{Name: "rxe0", MaxQPWR: 1024, MaxSGE: 4}}, routes: map[string]string{"10.77.0.1": "rxe0"}}
	compute := fakeDevices{devices: []Device{{Name: "rxe0", MaxQPWR: 16, MaxSGE: 4}}, routes: map[string]string{"10.77.0.1": "rxe0"}}
	var asked []string
	devices := func(agent string) DeviceInfo {
		asked = append(asked, agent)
		switch agent {
		case "agent.storage":
			return storage
		case "agent.compute":
			return compute
		}
		t.Errorf("asked for the devices of %q", agent)
		return nil
	}
	_, diags := Make(context.Background(), cfg, nil, Options{Devices: devices})
	text := diagText(diags)
	if !strings.Contains(text, "endpoint.client[0]: max_send_wr = 32 exceeds rxe0's max_qp_wr of 16") || strings.Contains(text, "listener.loop") {
		t.Fatalf("the compute host's small device limits its endpoints only:\n%s", text)
	}
	if strings.Join(asked, ",") != "agent.compute,agent.storage" {
		t.Fatalf("asked %v", asked)
	}
}

// A saved plan keeps each change's agents, which apply routes by.
func TestPlanFileKeepsAgents(t *testing.T) {
	st := applied(t, mustPlan(t, onAgents(load(t, loopback), twoHosts), nil, Options{}))
	p := mustPlan(t, onAgents(load(t, loopback), map[string]string{"endpoint.client": "agent.storage"}), st, Options{})
	var b bytes.Buffer
	if err := WritePlanFile(&b, &SavedPlan{Plan: p, RdmaformVersion: "0.1.0"}); err != nil {
		t.Fatal(err)
	}
	sp, err := ReadPlanFile(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	c := sp.Plan.Change(mustAddr(t, "endpoint.client[0]"))
	if c == nil || c.Agent != "agent.storage" || c.PriorAgent != "agent.compute" {
		t.Fatalf("read back: %+v", c)
	}
	if c := sp.Plan.Change(mustAddr(t, "listener.loop")); c.Agent != "" || c.PriorAgent != "agent.storage" {
		t.Fatalf("read back: %+v", c)
	}
}

// Objects of an agent the configuration no longer declares cannot be
// destroyed: the plan says to keep its block until they are.
func TestRemovedAgentBlockIsNeededToDestroy(t *testing.T) {
	st := applied(t, mustPlan(t, onAgents(load(t, loopback), twoHosts), nil, Options{}))
	cfg := load(t, loopback) // every object local now: the agents' blocks gone
	_, diags := Make(context.Background(), cfg, st, Options{})
	text := diagText(diags)
	for _, want := range []string{
		"Agent configuration not present: The state records endpoint.client[0], endpoint.client[1] on agent.compute",
		"Agent configuration not present: The state records listener.loop, protection_domain.rxe on agent.storage",
		"Keep (or add back) the agent block of agent.storage",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in\n%s", want, text)
		}
	}
	// With the blocks kept, the same move is planned.
	if _, diags := Make(context.Background(), withAgents(load(t, loopback)), st, Options{}); diags.HasErrors() {
		t.Fatalf("with the agent blocks: %s", diagText(diags))
	}
	// Destroying everything needs them too.
	if _, diags := Make(context.Background(), cfg, st, Options{Destroy: true}); !strings.Contains(diagText(diags), "Agent configuration not present") {
		t.Fatalf("destroy without the agent blocks: %s", diagText(diags))
	}
}

// An import adopts the object its agent holds: one of that name on
// another agent is not it.
func TestImportFromTheObjectsAgent(t *testing.T) {
	src := loopback + `
import {
  to = listener.loop
  id = "listener.loop"
}
`
	live := map[string]LiveObject{"listener.loop": {Token: "t", Status: "listening", Agent: "agent.compute"}}
	_, diags := Make(context.Background(), onAgents(load(t, src), twoHosts), nil, Options{Refresher: agentsRefresher{live: live}})
	if !strings.Contains(diagText(diags), "Cannot import non-existent remote object") {
		t.Fatalf("imported from another agent: %s", diagText(diags))
	}
	live["listener.loop"] = LiveObject{Token: "t", Status: "listening", Agent: "agent.storage"}
	p, diags := Make(context.Background(), onAgents(load(t, src), twoHosts), nil, Options{Refresher: agentsRefresher{live: live}})
	if c := p.Change(mustAddr(t, "listener.loop")); diags.HasErrors() || c == nil || !c.Importing() {
		t.Fatalf("import from its agent: %v %s", c, diagText(diags))
	}
}
