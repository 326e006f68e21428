package planner

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
)

// checkUnchangedPostconditions checks the postconditions of the objects
// the plan leaves as they are, against their values as refreshed, as
// Terraform checks them while planning: apply changes nothing there, so
// it would never check them. A failure is an error. Objects the plan
// changes are checked by apply once made or updated.
func (p *Plan) checkUnchangedPostconditions(cfg *config.Config) hcl.Diagnostics {
	valueOf := func(a addrs.Instance) (cty.Value, bool) {
		if c := p.Change(a); c != nil && c.Action != Delete {
			return c.AfterValue(), true
		}
		return cty.NilVal, false
	}
	var diags hcl.Diagnostics
	for _, c := range p.Changes {
		if c.Action != NoOp || !cfg.HasPostconditions(c.Addr) {
			continue // first, not to make the value of every unchanged object
		}
		if after := c.AfterValue(); after != cty.NilVal && !after.IsNull() {
			diags = append(diags, cfg.CheckKnownPostconditions(c.Addr, after, valueOf)...)
		}
	}
	return diags
}
