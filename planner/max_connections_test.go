package planner

import (
	"fmt"
	"strings"
	"testing"
)

// Lowering max_connections below the connections a listener holds is an
// in-place update that keeps them: the plan says so.
func TestLoweringMaxConnectionsBelowTheLiveCountWarns(t *testing.T) {
	src := `
listener "l" {
  address = "10.77.0.1"
  port    = 7471
  accept {
    max_connections = 4
  }
}
`
	st := applied(t, mustPlan(t, load(t, src), nil, Options{}))
	lowered := strings.Replace(src, "max_connections = 4", "max_connections = 1", 1)
	live := fakeRefresher{st: st, connections: map[string]int{"listener.l": 4}, status: map[string]string{"listener.l": "listening"}}
	p, diags := Make(t.Context(), load(t, lowered), st, Options{Refresher: live})
	if c := p.Change(mustAddr(t, "listener.l")); c == nil || c.Action != Update {
		t.Fatalf("plan: %s", actions(p))
	}
	if text := diagText(diags); !strings.Contains(text, "listener.l holds 4 connections (besides those of endpoints this plan destroys) and the update lowers accept.max_connections to 1: they are kept") {
		t.Errorf("no warning:\n%s", text)
	}
	live.connections["listener.l"] = 1
	if _, diags := Make(t.Context(), load(t, lowered), st, Options{Refresher: live}); len(diags) != 0 {
		t.Errorf("within the new limit: %s", diagText(diags))
	}
}

// The connections of endpoints the same plan destroys do not count: going
// from three replicas to two destroys one, and two are within the limit.
func TestMaxConnectionsWarningLeavesOutDestroyedEndpoints(t *testing.T) {
	src := func(replicas, limit int) string {
		return fmt.Sprintf(`
listener "l" {
  address = "10.77.0.1"
  port    = 7471
  accept {
    max_connections = %d
  }
}
endpoint "r" {
  count   = %d
  address = listener.l.address
  port    = listener.l.port
}
`, limit, replicas)
	}
	st := applied(t, mustPlan(t, load(t, src(3, 3)), nil, Options{}))
	live := fakeRefresher{st: st, connections: map[string]int{"listener.l": 3}, status: map[string]string{"listener.l": "listening"}}
	p, diags := Make(t.Context(), load(t, src(2, 2)), st, Options{Refresher: live})
	if c := p.Change(mustAddr(t, "endpoint.r[2]")); c == nil || c.Action != Delete {
		t.Fatalf("plan: %s", actions(p))
	}
	if text := diagText(diags); strings.Contains(text, "max_connections") {
		t.Errorf("warns though the plan destroys the surplus endpoint:\n%s", text)
	}
	if _, diags := Make(t.Context(), load(t, src(3, 2)), st, Options{Refresher: live}); !strings.Contains(diagText(diags), "holds 3 connections") {
		t.Errorf("no warning with the three endpoints kept: %s", diagText(diags))
	}
}
