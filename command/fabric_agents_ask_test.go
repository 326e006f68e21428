package command

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/state"
)

// gatedAgent is one agent of a fabric set whose Facts and Listeners wait
// at a gate (if any) that opens once every agent has been asked: asked
// one after another, the first would wait in vain.
type gatedAgent struct {
	key  string
	gate *askGate
	fail error
}

type askGate struct {
	mu      sync.Mutex
	entered map[string]bool
	want    int
	all     chan struct{}
}

func newAskGate(want int) *askGate {
	return &askGate{entered: map[string]bool{}, want: want, all: make(chan struct{})}
}

func (g *askGate) enter(key string) error {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	g.entered[key] = true
	if len(g.entered) == g.want {
		close(g.all)
	}
	g.mu.Unlock()
	select {
	case <-g.all:
		return nil
	case <-time.After(time.Minute): // a bound, not a synchronisation
		return errors.New("the other agents were never asked while this one answered: agents are asked one after another")
	}
}

func (a *gatedAgent) Live(context.Context) (map[string]planner.LiveObject, error) { return nil, nil }

func (a *gatedAgent) Facts(_ context.Context, handles []string) (map[string]state.Facts, error) {
	if err := a.gate.enter(a.key); err != nil {
		return nil, err
	}
	if a.fail != nil {
		return nil, a.fail
	}
	out := map[string]state.Facts{}
	for _, h := range handles {
		out[h] = state.Facts{Status: "established", Device: a.key}
	}
	return out, nil
}

func (a *gatedAgent) Listeners(context.Context) ([]planner.LiveListener, error) {
	if err := a.gate.enter(a.key); err != nil {
		return nil, err
	}
	if a.fail != nil {
		return nil, a.fail
	}
	return []planner.LiveListener{{Handle: "listener.l-" + a.key, Address: "10.77.1.1", Port: 7471}}, nil
}

func gatedSet(keys []string, gate *askGate) *fabricSet {
	s := &fabricSet{links: map[string]*agentLink{}, holder: map[string]string{}}
	for i, k := range keys {
		s.links[k] = &agentLink{key: k, address: fmt.Sprintf("10.77.1.%d:7470", i+1), conn: &fabricConn{Refresher: &gatedAgent{key: k, gate: gate}}}
		s.holder["endpoint.e-"+k] = k
	}
	return s
}

// A refresh reading facts, and the held-ports check reading listeners,
// ask every agent at once, and answer with all of theirs.
func TestFabricSetAsksAgentsAtOnce(t *testing.T) {
	keys := []string{"agent.a", "agent.b", "agent.c"}
	s := gatedSet(keys, newAskGate(len(keys)))
	facts, err := s.Facts(context.Background(), []string{"endpoint.e-agent.a", "endpoint.e-agent.b", "endpoint.e-agent.c"})
	if err != nil {
		t.Fatalf("Facts: %v", err)
	}
	for _, k := range keys {
		if f := facts["endpoint.e-"+k]; f.Device != k {
			t.Errorf("facts of endpoint.e-%s: %+v, want those %s answered", k, f, k)
		}
	}

	s = gatedSet(keys, newAskGate(len(keys)))
	ls, err := s.Listeners(context.Background())
	if err != nil {
		t.Fatalf("Listeners: %v", err)
	}
	if len(ls) != len(keys) {
		t.Fatalf("listeners: %+v", ls)
	}
	for i, l := range ls { // in the agents' order, each naming its agent
		if l.Agent != keys[i] || l.Handle != "listener.l-"+keys[i] {
			t.Errorf("listener %d: %+v, want agent %s's", i, l, keys[i])
		}
	}
}

// An agent that fails is named, with its address, by Facts and by
// Listeners.
func TestFabricSetNamesTheAgentThatFailed(t *testing.T) {
	keys := []string{"agent.a", "agent.b"}
	for _, what := range []string{"Facts", "Listeners"} {
		s := gatedSet(keys, nil)
		s.links["agent.b"].conn.Refresher.(*gatedAgent).fail = errors.New("listing the agent's objects: connection reset")
		var err error
		if what == "Facts" {
			_, err = s.Facts(context.Background(), []string{"endpoint.e-agent.a", "endpoint.e-agent.b"})
		} else {
			_, err = s.Listeners(context.Background())
		}
		if err == nil || !strings.Contains(err.Error(), "agent.b (10.77.1.2:7470): listing the agent's objects: connection reset") {
			t.Errorf("%s with agent.b failing: %v", what, err)
		}
	}
}
