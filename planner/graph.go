package planner

import "github.com/rdmaform/rdmaform/config/addrs"

// Op is one step of apply.
type Op int

const (
	// OpBarrier does nothing; it joins the operations of one block so
	// that a dependency on a block costs one edge per instance, not one
	// per pair of instances (10,000 endpoints on 10,000 listeners).
	OpBarrier Op = iota
	OpCreate
	OpUpdate
	OpDelete
)

// Node is one operation on one object (Change is nil for barriers).
type Node struct {
	Op     Op
	Change *Change
	Label  string // for barriers: what they join
}

// Graph is the plan's operations and their order. Deps(i) must finish
// before node i starts. It is acyclic by construction: create-side edges
// follow the configuration's dependency order, delete-side edges reverse
// the state's.
type Graph struct {
	Nodes []Node
	deps  [][]int
}

// Deps returns the nodes that must complete before node i.
func (g *Graph) Deps(i int) []int { return g.deps[i] }

// Len is the number of nodes.
func (g *Graph) Len() int { return len(g.Nodes) }

func (g *Graph) add(n Node) int {
	g.Nodes = append(g.Nodes, n)
	g.deps = append(g.deps, nil)
	return len(g.Nodes) - 1
}

func (g *Graph) edge(node, dep int) { g.deps[node] = append(g.deps[node], dep) }

// Graph returns the plan's operations in dependency order:
//
//   - a create or update runs after the creates and updates of every block
//     it depends on;
//   - a delete runs after the deletes of every object that depends on its
//     block (so a protection domain goes last);
//   - a replacement deletes then creates, or with create_before_destroy
//     creates then deletes.
func (p *Plan) Graph() *Graph {
	g := &Graph{}
	created := map[addrs.Resource]int{}      // barrier: every create/update of the block done
	usersDeleted := map[addrs.Resource]int{} // barrier: every delete of objects depending on the block done
	barrier := func(m map[addrs.Resource]int, r addrs.Resource, label string) int {
		if i, ok := m[r]; ok {
			return i
		}
		i := g.add(Node{Op: OpBarrier, Label: label + " " + r.String()})
		m[r] = i
		return i
	}
	for _, c := range p.Changes {
		if c.Action == NoOp {
			continue
		}
		var create, del = -1, -1
		if c.Action.Creates() || c.Action == Update {
			op := OpCreate
			if c.Action == Update {
				op = OpUpdate
			}
			create = g.add(Node{Op: op, Change: c})
			g.edge(barrier(created, c.Addr.Resource, "created"), create)
			for _, d := range c.Dependencies {
				g.edge(create, barrier(created, d, "created"))
			}
		}
		if c.Action.Deletes() {
			del = g.add(Node{Op: OpDelete, Change: c})
			g.edge(del, barrier(usersDeleted, c.Addr.Resource, "users deleted of"))
			for _, d := range c.Dependencies {
				g.edge(barrier(usersDeleted, d, "users deleted of"), del)
			}
		}
		switch c.Action {
		case DeleteThenCreate:
			g.edge(create, del)
		case CreateThenDelete:
			g.edge(del, create)
		}
	}
	return g
}
