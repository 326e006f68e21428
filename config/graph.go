package config

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// node is one vertex of the dependency graph: a variable, local value,
// block (protection_domain, listener, endpoint) or output, named by key
// ("var.x", "local.y", "listener.z", "output.w").
type node struct {
	key  string
	rng  hcl.Range
	deps []string // keys of the nodes this one needs, sorted, unique
}

// graph is the dependency graph; edges point from a node to what it needs.
type graph struct {
	nodes map[string]*node
}

func (g *graph) add(key string, rng hcl.Range, refs []*reference, extra ...string) {
	g.nodes[key] = newNode(key, rng, refs, extra...)
}

// newNode is the node key, declared at rng, that needs what refs and extra
// name.
func newNode(key string, rng hcl.Range, refs []*reference, extra ...string) *node {
	deps := make([]string, 0, len(refs)+len(extra))
	for _, r := range refs {
		if k := r.key(); k != "" {
			deps = append(deps, k)
		}
	}
	deps = append(deps, extra...)
	sort.Strings(deps)
	deps = slices.Compact(deps)
	if len(deps) == 0 {
		deps = nil
	}
	return &node{key: key, rng: rng, deps: deps}
}

// order returns the strongly connected components with every component
// after the ones it depends on (Tarjan's algorithm, which emits them in
// that order). A component of more than one node, or a node that needs
// itself, is a cycle.
func (g *graph) order() [][]*node {
	keys := make([]string, 0, len(g.nodes))
	for k := range g.nodes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	index := make(map[string]int, len(keys))
	low := make(map[string]int, len(keys))
	onStack := make(map[string]bool, len(keys))
	var stack []string
	var out [][]*node
	next := 0
	var strong func(k string)
	strong = func(k string) {
		index[k], low[k] = next, next
		next++
		stack = append(stack, k)
		onStack[k] = true
		for _, d := range g.nodes[k].deps {
			if _, ok := g.nodes[d]; !ok {
				continue
			}
			if _, visited := index[d]; !visited {
				strong(d)
				low[k] = min(low[k], low[d])
			} else if onStack[d] {
				low[k] = min(low[k], index[d])
			}
		}
		if low[k] == index[k] {
			var comp []*node
			for {
				top := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[top] = false
				comp = append(comp, g.nodes[top])
				if top == k {
					break
				}
			}
			sort.Slice(comp, func(i, j int) bool { return comp[i].key < comp[j].key })
			out = append(out, comp)
		}
	}
	for _, k := range keys {
		if _, visited := index[k]; !visited {
			strong(k)
		}
	}
	return out
}

// isCycle reports whether a component is a cycle.
func isCycle(comp []*node) bool {
	if len(comp) > 1 {
		return true
	}
	for _, d := range comp[0].deps {
		if d == comp[0].key {
			return true
		}
	}
	return false
}

// cycleDiag is the one diagnostic for a cycle, naming every member and
// where it is declared.
func (e *evaluator) cycleDiag(comp []*node) *hcl.Diagnostic {
	if len(comp) == 1 {
		// A block that refers to itself: Terraform's words, and the
		// reference to change.
		n := comp[0]
		for _, r := range e.refs[n.key] {
			if r.key() == n.key {
				return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Self-referential block",
					Detail:  fmt.Sprintf("Configuration for %s may not refer to itself.", n.key),
					Subject: r.rng.Ptr()}
			}
		}
	}
	names := make([]string, len(comp))
	lines := make([]string, len(comp))
	for i, n := range comp {
		names[i] = n.key
		lines[i] = fmt.Sprintf("  %s (%s)", n.key, n.rng)
	}
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Cycle: " + strings.Join(names, ", "),
		Detail:   "These objects depend on each other, so none of them can be evaluated first:\n" + strings.Join(lines, "\n"),
		Subject:  comp[0].rng.Ptr(),
	}
}
