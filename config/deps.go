package config

import (
	"slices"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config/addrs"
)

// dependencies fills each Resource's DependsOn: the blocks it references
// directly, through local values, or by depends_on; and each Output's.
func dependencies(e *evaluator) hcl.Diagnostics {
	// What local values and variables lead to, memoized: they are shared
	// by many blocks. A node being visited is part of a cycle, reported
	// already, and leads nowhere more.
	memo := map[string][]addrs.Resource{}
	visiting := map[string]bool{}
	var reach func(n *node, out []addrs.Resource) []addrs.Resource
	reach = func(n *node, out []addrs.Resource) []addrs.Resource {
		for _, d := range n.deps {
			kind, name, _ := cutDot(d)
			switch kind {
			case "output", agentKind:
				// An agent is not an object: it is reached, not made.
			case "local", "var":
				r, ok := memo[d]
				if !ok && !visiting[d] {
					if dn := e.graph.nodes[d]; dn != nil {
						visiting[d] = true
						r = reach(dn, nil)
						memo[d] = r
					}
				}
				out = append(out, r...)
			default:
				out = append(out, addrs.Resource{Kind: addrs.Kind(kind), Name: name})
			}
		}
		return out
	}
	for name, o := range e.decl.outputs {
		if n := e.graph.nodes["output."+name]; n != nil {
			deps := reach(n, nil)
			sort.Slice(deps, func(i, j int) bool {
				return deps[i].Instance(nil).Less(deps[j].Instance(nil))
			})
			o.DependsOn = slices.Compact(deps)
		}
	}
	for _, r := range e.decl.resources {
		deps := r.DependsOn[:0]
		if n := e.graph.nodes[r.key]; n != nil {
			deps = reach(n, deps)
		}
		for _, t := range r.Lifecycle.ReplaceTriggeredBy {
			if t.Resource != r.Addr && e.decl.resources[t.Resource] != nil {
				deps = append(deps, t.Resource)
			}
		}
		sort.Slice(deps, func(i, j int) bool {
			return deps[i].Instance(nil).Less(deps[j].Instance(nil))
		})
		r.DependsOn = slices.Compact(deps)
	}
	return nil
}
