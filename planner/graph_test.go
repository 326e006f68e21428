package planner

import (
	"fmt"
	"testing"
)

// assertAcyclic fails if g has a cycle.
func assertAcyclic(t *testing.T, g *Graph) {
	t.Helper()
	state := make([]int, g.Len()) // 0 new, 1 on stack, 2 done
	var visit func(i int)
	visit = func(i int) {
		switch state[i] {
		case 1:
			t.Fatalf("cycle through %s", nodeName(g, i))
		case 2:
			return
		}
		state[i] = 1
		for _, d := range g.Deps(i) {
			visit(d)
		}
		state[i] = 2
	}
	for i := range g.Nodes {
		visit(i)
	}
}

func nodeName(g *Graph, i int) string {
	n := g.Nodes[i]
	if n.Change == nil {
		return n.Label
	}
	return fmt.Sprintf("%v %s", n.Op, n.Change.Addr)
}

// runsBefore reports whether node a is a transitive dependency of b.
func runsBefore(g *Graph, a, b int) bool {
	seen := map[int]bool{}
	var walk func(i int) bool
	walk = func(i int) bool {
		for _, d := range g.Deps(i) {
			if d == a {
				return true
			}
			if !seen[d] {
				seen[d] = true
				if walk(d) {
					return true
				}
			}
		}
		return false
	}
	return walk(b)
}

func findNode(t *testing.T, g *Graph, op Op, addr string) int {
	t.Helper()
	for i, n := range g.Nodes {
		if n.Op == op && n.Change != nil && n.Change.Addr.String() == addr {
			return i
		}
	}
	t.Fatalf("no %v node for %s", op, addr)
	return -1
}

func TestGraphCreatesInDependencyOrder(t *testing.T) {
	g := mustPlan(t, load(t, loopback), nil, Options{}).Graph()
	assertAcyclic(t, g)
	pd := findNode(t, g, OpCreate, "protection_domain.rxe")
	l := findNode(t, g, OpCreate, "listener.loop")
	e := findNode(t, g, OpCreate, "endpoint.client[1]")
	if !runsBefore(g, pd, l) || !runsBefore(g, l, e) || !runsBefore(g, pd, e) {
		t.Fatal("creates are not ordered pd, listener, endpoint")
	}
	if runsBefore(g, e, pd) {
		t.Fatal("endpoint before pd")
	}
}

func TestGraphDestroysInReverse(t *testing.T) {
	cfg := load(t, loopback)
	st := applied(t, mustPlan(t, cfg, nil, Options{}))
	g := mustPlan(t, cfg, st, Options{Destroy: true}).Graph()
	assertAcyclic(t, g)
	pd := findNode(t, g, OpDelete, "protection_domain.rxe")
	l := findNode(t, g, OpDelete, "listener.loop")
	e := findNode(t, g, OpDelete, "endpoint.client[0]")
	if !runsBefore(g, e, l) || !runsBefore(g, l, pd) || !runsBefore(g, e, pd) {
		t.Fatal("deletes are not ordered endpoint, listener, pd")
	}
}

func TestGraphReplacementDeletesBeforeCreating(t *testing.T) {
	cfg := load(t, loopback)
	st := applied(t, mustPlan(t, cfg, nil, Options{}))
	p := mustPlan(t, load(t, `protection_domain "rxe" {
  device = "rxe1"
}
`+loopback[len("\nprotection_domain \"rxe\" {\n  device = \"rxe0\"\n}\n"):]), st, Options{})
	g := p.Graph()
	assertAcyclic(t, g)
	pdDel := findNode(t, g, OpDelete, "protection_domain.rxe")
	pdNew := findNode(t, g, OpCreate, "protection_domain.rxe")
	eDel := findNode(t, g, OpDelete, "endpoint.client[0]")
	eNew := findNode(t, g, OpCreate, "endpoint.client[0]")
	if !runsBefore(g, pdDel, pdNew) || !runsBefore(g, eDel, pdDel) || !runsBefore(g, pdNew, eNew) || !runsBefore(g, eDel, eNew) {
		t.Fatal("replacement order wrong")
	}
}
