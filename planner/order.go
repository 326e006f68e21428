package planner

import (
	"sort"

	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
)

// resourceOrder returns the configuration's resources so that each comes
// after the resources it depends on (the loader has already refused
// cycles; any that remained would be placed in kind order). Ties are broken
// by addrs order so that plans are reproducible.
func resourceOrder(cfg *config.Config) []*config.Resource {
	rs := make([]*config.Resource, 0, len(cfg.Resources))
	for _, r := range cfg.Resources {
		rs = append(rs, r)
	}
	sort.Slice(rs, func(i, j int) bool {
		return addrs.Instance{Resource: rs[i].Addr}.Less(addrs.Instance{Resource: rs[j].Addr})
	})
	out := make([]*config.Resource, 0, len(rs))
	placed := make(map[addrs.Resource]bool, len(rs))
	visiting := map[addrs.Resource]bool{}
	var visit func(r *config.Resource)
	visit = func(r *config.Resource) {
		if placed[r.Addr] || visiting[r.Addr] {
			return
		}
		visiting[r.Addr] = true
		for _, d := range r.DependsOn {
			if dr := cfg.Resources[d]; dr != nil {
				visit(dr)
			}
		}
		placed[r.Addr] = true
		out = append(out, r)
	}
	for _, r := range rs {
		visit(r)
	}
	return out
}
