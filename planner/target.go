package planner

import (
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
