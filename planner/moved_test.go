package planner

import (
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/state"
)

func TestApplyMovesFollowsChainsAndRefusesTakenAddresses(t *testing.T) {
	addr := func(s string) addrs.Instance {
		a, err := addrs.ParseInstance(s)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	priors := func(addrs ...string) map[string]*prior {
		m := map[string]*prior{}
		for _, s := range addrs {
			m[s] = &prior{obj: &state.Object{Addr: addr(s)}}
		}
		return m
	}
	cfg := &config.Config{Moved: []*config.Moved{
		{From: addr("listener.a"), To: addr("listener.b"), Whole: true},
		{From: addr("listener.b"), To: addr("listener.c"), Whole: true},
		{From: addr("endpoint.e[0]"), To: addr("endpoint.e[1]")},
	}}

	var p Plan
	pr := priors("listener.a", "endpoint.x")
	pr["endpoint.x"].obj.Dependencies = []addrs.Instance{addr("listener.a")}
	moved, diags := p.applyMoves(cfg, pr)
	if len(diags) != 0 || moved[addr("listener.a")] != addr("listener.c") || pr["listener.c"] == nil || pr["listener.a"] != nil {
		t.Fatalf("chain: %v %v %v", moved, diags, pr)
	}
	if h := pr["listener.c"].obj.Facts.AgentHandle; h != "listener.a" {
		t.Errorf("the moved object's agent name is %q, want listener.a", h)
	}
	if d := pr["endpoint.x"].obj.Dependencies; len(d) != 1 || d[0] != addr("listener.c") {
		t.Errorf("a dependent's dependencies: %v", d)
	}
	if len(p.Moves) != 1 || p.Moves[0] != (Move{From: addr("listener.a"), To: addr("listener.c")}) {
		t.Errorf("moves %v", p.Moves)
	}

	p = Plan{}
	pr = priors("endpoint.e[0]", "endpoint.e[1]")
	moved, diags = p.applyMoves(cfg, pr)
	if len(moved) != 0 || len(diags) != 1 || !strings.Contains(diags[0].Detail, "already records an object there") || pr["endpoint.e[0]"] == nil {
		t.Fatalf("taken address: %v %v", moved, diags)
	}
}
