package config

import (
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config/addrs"
)

// dependencies fills each Resource's DependsOn: the blocks it references
// directly, through local values, or by depends_on.
func dependencies(e *evaluator) hcl.Diagnostics {
	memo := map[string][]addrs.Resource{}
	var reach func(key string, visiting map[string]bool) []addrs.Resource
	reach = func(key string, visiting map[string]bool) []addrs.Resource {
		if r, ok := memo[key]; ok {
			return r
		}
		if visiting[key] {
			return nil // a cycle, reported already
		}
		visiting[key] = true
		var out []addrs.Resource
		n := e.graph.nodes[key]
		if n == nil {
			return nil
		}
		for _, d := range n.deps {
			if kind, name, _ := cutDot(d); kind == "local" || kind == "var" {
				out = append(out, reach(d, visiting)...)
			} else if kind != "output" {
				out = append(out, addrs.Resource{Kind: addrs.Kind(kind), Name: name})
			}
		}
		memo[key] = out
		return out
	}
	for _, r := range e.decl.resources {
		all := reach(r.key, map[string]bool{})
		seen := map[addrs.Resource]bool{}
		r.DependsOn = r.DependsOn[:0]
		for _, d := range all {
			if !seen[d] {
				seen[d] = true
				r.DependsOn = append(r.DependsOn, d)
			}
		}
		sort.Slice(r.DependsOn, func(i, j int) bool {
			return r.DependsOn[i].Instance(nil).Less(r.DependsOn[j].Instance(nil))
		})
	}
	return nil
}
