package planner

import (
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/state"
)

func TestCreateOfANameTheAgentHoldsIsRefused(t *testing.T) {
	cfg := load(t, loopback)
	e0 := addrs.Resource{Kind: addrs.Endpoint, Name: "client"}.Instance(addrs.IntKey(0))
	p := &Plan{Changes: []*Change{{Addr: e0, Action: Create}}}
	live := map[string]LiveObject{"endpoint.client[0]": {Status: "established"}}
	d := heldByAgent(p, cfg, nil, live)
	if len(d) != 1 || d[0].Summary != "Object already held by the agent" || !strings.Contains(d[0].Detail, `"rdmaform import endpoint.client[0]"`) || d[0].Subject == nil {
		t.Fatalf("got %v", d)
	}
	// The name a state object holds, moved to another address, is not a
	// clash: apply makes the new object under another name.
	moved := &state.State{Objects: map[string]*state.Object{}}
	moved.SetObject(&state.Object{Addr: addrs.Resource{Kind: addrs.Endpoint, Name: "old"}.Instance(nil), Facts: state.Facts{AgentHandle: "endpoint.client[0]"}})
	if d := heldByAgent(p, cfg, moved, live); len(d) != 0 {
		t.Errorf("a name the state holds: %v", d)
	}
	// Without a refresh nothing is known.
	if d := heldByAgent(p, cfg, nil, nil); len(d) != 0 {
		t.Errorf("without a refresh: %v", d)
	}
}
