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

// An object may move to where another leaves from: none is lost, in the
// plan's view or in the state apply works from.
func TestMovesOntoALeavingAddress(t *testing.T) {
	addr := func(s string) addrs.Instance {
		a, err := addrs.ParseInstance(s)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	cfg := &config.Config{Moved: []*config.Moved{
		{From: addr("endpoint.r"), To: addr("endpoint.r2"), Whole: true},
		{From: addr("endpoint.r2[0]"), To: addr("endpoint.r[1]")},
	}}
	for round := 0; round < 20; round++ { // map order varies
		st := state.New()
		pr := map[string]*prior{}
		for _, s := range []string{"endpoint.r[0]", "endpoint.r[1]"} {
			o := &state.Object{Addr: addr(s), Facts: state.Facts{CreateToken: s}}
			st.SetObject(o)
			pr[s] = &prior{obj: o}
		}
		var p Plan
		moved, diags := p.applyMoves(cfg, pr)
		if len(diags) != 0 || len(moved) != 2 {
			t.Fatalf("moves %v: %v", moved, diags)
		}
		if got := pr["endpoint.r[1]"]; got == nil || got.obj.Facts.CreateToken != "endpoint.r[0]" {
			t.Fatalf("endpoint.r[1] holds %+v, want the object made as endpoint.r[0]", got)
		}
		if got := pr["endpoint.r2[1]"]; got == nil || got.obj.Facts.CreateToken != "endpoint.r[1]" {
			t.Fatalf("endpoint.r2[1] holds %+v, want the object made as endpoint.r[1]", got)
		}
		ms := p.MovedState(st)
		if len(ms.Objects) != 2 || ms.Object(addr("endpoint.r[1]")).Facts.CreateToken != "endpoint.r[0]" || ms.Object(addr("endpoint.r2[1]")).Facts.CreateToken != "endpoint.r[1]" {
			t.Fatalf("MovedState: %v", ms.Addresses())
		}
	}
}
