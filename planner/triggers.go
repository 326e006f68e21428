package planner

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
)

// planned is what diffConfig has planned so far, for the triggers of the
// blocks that come after (a trigger is a dependency, so what it references
// is planned first).
type planned struct {
	byAddr     map[addrs.Instance]*Change
	byResource map[addrs.Resource][]*Change
}

func (pl *planned) add(c *Change) {
	pl.byAddr[c.Addr] = c
	pl.byResource[c.Addr.Resource] = append(pl.byResource[c.Addr.Resource], c)
}

// triggered adds to replace the instances of insts (those in the state)
// whose replace_triggered_by references an object the plan updates or
// replaces, or an attribute it changes.
func (pl *planned) triggered(insts []*config.Instance, priors map[string]*prior, replace map[addrs.Instance]ActionReason) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, inst := range insts {
		if priors[inst.Addr.String()] == nil || replace[inst.Addr] != ReasonNone {
			continue
		}
		for _, t := range inst.Resource.Lifecycle.ReplaceTriggeredBy {
			target, every, d := t.TriggerTarget(inst.Addr)
			diags = append(diags, d...)
			refs := pl.byResource[t.Resource]
			if !every {
				refs = nil
				if c := pl.byAddr[target]; c != nil {
					refs = []*Change{c}
				}
			}
			if triggers(refs, t.Attr) {
				replace[inst.Addr] = ReasonReplaceByTriggers
				break
			}
		}
	}
	return diags
}

// triggers reports whether one of changes updates or replaces its object
// and, with attr, changes that attribute (or makes it known only after
// apply).
func triggers(changes []*Change, attr cty.Path) bool {
	for _, c := range changes {
		if c.Action != Update && !c.Action.IsReplace() {
			continue
		}
		if attr == nil {
			return true
		}
		before, berr := attr.Apply(c.BeforeValue())
		after, aerr := attr.Apply(c.AfterValue())
		if berr != nil || aerr != nil {
			continue // a nested block absent on one side: compared as null
		}
		if !after.IsWhollyKnown() || !before.IsWhollyKnown() || !before.RawEquals(after) {
			return true
		}
	}
	return false
}
