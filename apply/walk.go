package apply

import (
	"context"
	"errors"
)

// Graph is what Walk orders: nodes 0..Len()-1 and, for each, the nodes
// that must complete first. planner.Graph implements it.
type Graph interface {
	Len() int
	Deps(i int) []int
}

// Outcome is what became of one node.
type Outcome int

const (
	Pending    Outcome = iota
	Done               // visit succeeded
	Failed             // visit returned an error
	Skipped            // a dependency failed (Result.Cause names which)
	NotStarted         // the walk was stopped before it could start
	Cancelled          // started, then undone because the walk was stopped
)

// ErrNotStarted is returned by a visit that gave up before doing anything
// because the walk is stopping (for example while waiting for a
// parallelism slot); the node counts as not started.
var ErrNotStarted = errors.New("not started")

// ErrCancelled is wrapped by the error of a visit that had started, was
// still waiting when the walk was stopped (an endpoint not yet
// established), and undid what it had begun: nothing of it remains, and
// the node counts as cancelled.
var ErrCancelled = errors.New("interrupted")

// Result is one node's outcome.
type Result struct {
	Outcome Outcome
	Err     error
	// Cause is the failed node a Skipped node waited for, -1 otherwise.
	Cause int
}

// Walk calls visit once for each node whose dependencies all succeeded,
// each call in its own goroutine: Walk knows nothing of parallelism, visit
// limits it. A node with a failed or skipped dependency is Skipped without
// being visited; once ctx is done no more nodes start and those left are
// NotStarted. Walk returns when every node has an outcome, that is after
// the visits in flight have returned.
func Walk(ctx context.Context, g Graph, visit func(node int) error) []Result {
	n := g.Len()
	results := make([]Result, n)
	waiting := make([]int, n)
	dependents := make([][]int, n)
	for i := 0; i < n; i++ {
		results[i].Cause = -1
		deps := g.Deps(i)
		waiting[i] = len(deps)
		for _, d := range deps {
			dependents[d] = append(dependents[d], i)
		}
	}
	type completion struct {
		node int
		err  error
	}
	finished := make(chan completion)
	resolved := 0
	var ready []int // nodes whose dependencies are all resolved

	// resolve records a node's outcome and releases its dependents,
	// passing on a failure as the cause of their skipping.
	resolve := func(node int, r Result) {
		results[node] = r
		resolved++
		for _, dep := range dependents[node] {
			switch r.Outcome {
			case Failed:
				if results[dep].Cause < 0 {
					results[dep].Cause = node
				}
			case Skipped:
				if results[dep].Cause < 0 {
					results[dep].Cause = r.Cause
				}
			case NotStarted, Cancelled:
				if results[dep].Outcome == Pending {
					results[dep].Outcome = NotStarted
				}
			}
			waiting[dep]--
			if waiting[dep] == 0 {
				ready = append(ready, dep)
			}
		}
	}
	for i := 0; i < n; i++ {
		if waiting[i] == 0 {
			ready = append(ready, i)
		}
	}
	for resolved < n {
		for len(ready) > 0 {
			node := ready[len(ready)-1]
			ready = ready[:len(ready)-1]
			switch {
			case results[node].Cause >= 0:
				resolve(node, Result{Outcome: Skipped, Cause: results[node].Cause})
			case results[node].Outcome == NotStarted || ctx.Err() != nil:
				resolve(node, Result{Outcome: NotStarted, Cause: -1})
			default:
				go func(node int) {
					finished <- completion{node, visit(node)}
				}(node)
			}
		}
		if resolved == n {
			break
		}
		c := <-finished
		switch {
		case c.err == nil:
			resolve(c.node, Result{Outcome: Done, Cause: -1})
		case errors.Is(c.err, ErrNotStarted):
			resolve(c.node, Result{Outcome: NotStarted, Cause: -1})
		case errors.Is(c.err, ErrCancelled):
			resolve(c.node, Result{Outcome: Cancelled, Err: c.err, Cause: -1})
		default:
			resolve(c.node, Result{Outcome: Failed, Err: c.err, Cause: -1})
		}
	}
	return results
}
