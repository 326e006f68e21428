package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
)

// propagateCreateBeforeDestroy makes the replacement of anything a
// create_before_destroy replacement depends on create-before-destroy too,
// as Terraform does: otherwise the dependency's delete would wait for the
// dependent's delete, which waits for the dependent's create, which waits
// for the dependency's create, which waits for its delete.
func propagateCreateBeforeDestroy(p *Plan) {
	cbd := map[addrs.Resource]bool{}
	for _, c := range p.Changes {
		if c.Action == CreateThenDelete {
			for _, d := range c.Dependencies {
				cbd[d] = true
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for _, c := range p.Changes {
			if c.Action == DeleteThenCreate && cbd[c.Addr.Resource] {
				c.Action = CreateThenDelete
				for _, d := range c.Dependencies {
					if !cbd[d] {
						cbd[d], changed = true, true
					}
				}
			}
		}
	}
}

// destroyFirstWhereBound turns the create_before_destroy replacement of
// a listener that keeps its address, port and port space into a
// destroy-first one, with a warning: the listener it replaces holds that
// address until destroyed, so the new one could not listen. Replacements
// depending on it become destroy-first too (the dependency's delete
// waits for theirs, which would wait for their create, which waits for
// the dependency's create).
func destroyFirstWhereBound(p *Plan) hcl.Diagnostics {
	var bound []addrs.Resource // listener blocks, in plan order
	first := map[addrs.Resource]bool{}
	for _, c := range p.Changes {
		// A listener moving to another agent binds on another host: no clash.
		if c.Action == CreateThenDelete && c.Addr.Kind == addrs.Listener && !c.AgentChanged() && sameBinding(c.BeforeValue(), c.AfterValue()) {
			c.Action = DeleteThenCreate
			if !first[c.Addr.Resource] {
				first[c.Addr.Resource] = true
				bound = append(bound, c.Addr.Resource)
			}
		}
	}
	var dependents []string
	for changed := true; changed; {
		changed = false
		for _, c := range p.Changes {
			if c.Action == CreateThenDelete && slices.ContainsFunc(c.Dependencies, func(d addrs.Resource) bool { return first[d] }) {
				c.Action = DeleteThenCreate
				if !first[c.Addr.Resource] {
					first[c.Addr.Resource], changed = true, true
					dependents = append(dependents, c.Addr.Resource.String())
				}
			}
		}
	}
	var diags hcl.Diagnostics
	for _, r := range bound {
		detail := fmt.Sprintf("%s keeps its address, port and port space, which the listener it replaces holds until it is destroyed, so the replacement could not listen beside it. It is replaced destroy-first: expect a gap in service.", r)
		if len(dependents) > 0 {
			detail += fmt.Sprintf(" So are the replacements that depend on it: %s.", strings.Join(dependents, ", "))
		}
		diags = append(diags, sourceless(hcl.DiagWarning, "create_before_destroy cannot replace a listener on the same address", detail))
	}
	return diags
}

// sameBinding reports whether a listener's replacement (after) may bind
// what the listener it replaces (before) holds: the same address, port
// and port space, or values not known until apply.
func sameBinding(before, after cty.Value) bool {
	if before.IsNull() || after.IsNull() || !before.IsKnown() || !after.IsKnown() {
		return true
	}
	for _, name := range []string{"address", "port", "port_space"} {
		if !before.Type().HasAttribute(name) || !after.Type().HasAttribute(name) {
			continue
		}
		b, a := before.GetAttr(name), after.GetAttr(name)
		if !a.IsKnown() || !b.IsKnown() {
			return true
		}
		if !a.RawEquals(b) {
			return false
		}
	}
	return true
}

// destroyFirst turns create-before-destroy replacements into
// destroy-then-create ones, with one warning per block.
func destroyFirst(p *Plan) hcl.Diagnostics {
	var diags hcl.Diagnostics
	warned := map[addrs.Resource]bool{}
	for _, c := range p.Changes {
		if c.Action != CreateThenDelete {
			continue
		}
		c.Action = DeleteThenCreate
		if !warned[c.Addr.Resource] {
			warned[c.Addr.Resource] = true
			diags = append(diags, sourceless(hcl.DiagWarning, "create_before_destroy is not supported by the agent",
				fmt.Sprintf("The agent holds one object per address, so %s cannot have its replacement created before the old object is destroyed. Its objects are replaced destroy-first: expect a gap in service while each is re-created.", c.Addr.Resource)))
		}
	}
	return diags
}
