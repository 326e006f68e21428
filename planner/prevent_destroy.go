package planner

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config"
)

// checkPreventDestroy refuses a plan that would destroy an object whose
// block sets lifecycle.prevent_destroy, once per object.
func checkPreventDestroy(cfg *config.Config, p *Plan) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, c := range p.Changes {
		if !c.Action.Deletes() {
			continue
		}
		r := cfg.Resources[c.Addr.Resource]
		if r == nil || !r.Lifecycle.PreventDestroy {
			continue
		}
		rng := r.DeclRange
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Instance cannot be destroyed",
			Detail: fmt.Sprintf("Resource %s has lifecycle.prevent_destroy set, but the plan calls for this object to be destroyed (%s). "+
				"To avoid this error and continue with the plan, either disable lifecycle.prevent_destroy or reduce the scope of the plan using the -target flag.",
				c.Addr, describeDestroy(c)),
			Subject: &rng,
		})
	}
	return diags
}

func describeDestroy(c *Change) string {
	switch c.Reason {
	case ReasonCannotUpdate:
		return "an attribute that forces replacement changed"
	case ReasonReplaceByRequest:
		return "-replace asked for it"
	case ReasonTainted:
		return "it is tainted"
	case ReasonDestroyPlan:
		return "a destroy plan"
	}
	if c.Action.IsReplace() {
		return "replacement"
	}
	return "deletion"
}
