package planner

import (
	"slices"
	"sort"

	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
)

// applyTargets keeps only the changes of the targeted objects and of what
// they need: for a normal plan, the blocks they depend on (transitively);
// for a destroy plan, the objects that depend on them, which must go
// first.
func (p *Plan) applyTargets(targets []addrs.Instance) {
	instances := map[addrs.Instance]bool{}
	blocks := map[addrs.Resource]bool{}
	for _, t := range targets {
		if t.Key == nil {
			blocks[t.Resource] = true
		} else {
			instances[t] = true
		}
	}
	selected := func(c *Change) bool { return instances[c.Addr] || blocks[c.Addr.Resource] }
	via := map[addrs.Resource]addrs.Resource{} // destroy: the block that brought another in

	// Close over dependencies at block granularity, iterating to a fixed
	// point (the number of blocks bounds the rounds).
	for changed := true; changed; {
		changed = false
		for _, c := range p.Changes {
			if p.Destroy {
				if selected(c) {
					continue
				}
				for _, d := range c.Dependencies {
					if blocks[d] || anyInstanceOf(instances, d) {
						blocks[c.Addr.Resource], changed = true, true
						via[c.Addr.Resource] = d
						break
					}
				}
				continue
			}
			if !selected(c) {
				continue
			}
			for _, d := range c.Dependencies {
				if !blocks[d] {
					blocks[d], changed = true, true
				}
			}
		}
	}
	kept := p.Changes[:0]
	for _, c := range p.Changes {
		if selected(c) {
			if d, ok := via[c.Addr.Resource]; ok && !instances[c.Addr] {
				c.TargetedVia = d
			}
			kept = append(kept, c)
		}
	}
	p.Changes = kept
	var drift []Drift
	for _, d := range p.Drift {
		if instances[d.Addr] || blocks[d.Addr.Resource] {
			drift = append(drift, d)
		}
	}
	p.Drift = drift
	var deposed []Deposed
	for _, d := range p.Deposed {
		if instances[d.Addr] || blocks[d.Addr.Resource] {
			deposed = append(deposed, d)
		}
	}
	p.Deposed = deposed
}

func anyInstanceOf(instances map[addrs.Instance]bool, r addrs.Resource) bool {
	for i := range instances {
		if i.Resource == r {
			return true
		}
	}
	return false
}

// addresses are the instances the configuration declares and the state
// holds, for telling a user that an address matches none of them.
type addresses map[addrs.Resource][]addrs.Instance

func knownAddresses(cfg *config.Config, pre *Priors) addresses {
	out := addresses{}
	seen := map[addrs.Instance]bool{}
	add := func(a addrs.Instance) {
		if !seen[a] {
			seen[a] = true
			out[a.Resource] = append(out[a.Resource], a)
		}
	}
	if cfg != nil {
		for a := range cfg.Instances {
			add(a)
		}
	}
	for _, pr := range pre.byAddr {
		add(pr.obj.Addr)
	}
	for _, insts := range out {
		sort.Slice(insts, func(i, j int) bool { return insts[i].Less(insts[j]) })
	}
	return out
}

func (k addresses) instancesOf(r addrs.Resource) []addrs.Instance { return k[r] }

// has reports whether a (a block without a key, or an instance) matches
// a known instance.
func (k addresses) has(a addrs.Instance) bool {
	if a.Key == nil {
		return len(k[a.Resource]) > 0
	}
	return slices.Contains(k[a.Resource], a)
}

// didYouMean suggests the known block or instance nearest to a.
func (k addresses) didYouMean(a addrs.Instance) string {
	var names []string
	for r, insts := range k {
		names = append(names, r.String())
		if a.Key != nil && r == a.Resource {
			names = append(names, addrStrings(insts)...)
		}
	}
	// The address itself, known, is no suggestion.
	names = slices.DeleteFunc(names, func(n string) bool { return n == a.String() })
	sort.Strings(names)
	return config.DidYouMean(a.String(), names)
}

func addrStrings(as []addrs.Instance) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.String()
	}
	return out
}
