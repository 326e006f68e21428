package config

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
)

// Check is a check block, as Terraform's: assertions about the fabric as
// a whole whose failures are warnings, reported by plan (when their
// values are known) and again by apply with what it made.
type Check struct {
	Name      string
	Asserts   []*Condition
	DeclRange hcl.Range
}

var checkSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "assert"}}}

func decodeCheck(b *hcl.Block) (*Check, hcl.Diagnostics) {
	content, diags := b.Body.Content(checkSchema)
	c := &Check{Name: b.Labels[0], DeclRange: b.DefRange}
	for _, ab := range content.Blocks {
		a, d := decodeCondition(ab)
		diags = append(diags, d...)
		if a != nil {
			c.Asserts = append(c.Asserts, a)
		}
	}
	if len(c.Asserts) == 0 && !diags.HasErrors() {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Missing assert block",
			Detail: fmt.Sprintf("check %q needs at least one assert { condition, error_message } block.", c.Name), Subject: b.DefRange.Ptr()})
	}
	return c, diags
}

// checkChecks validates the checks' references. They are evaluated by the
// planner and apply (ChecksWith), with the objects' values.
func (e *evaluator) checkChecks() hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, c := range e.cfg.Checks {
		for _, a := range c.Asserts {
			refs, self := a.traversals()
			_, d := e.decl.collectRefs(nil, "", refs...)
			for _, tr := range self {
				d = append(d, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid reference",
					Detail: "self is only available in a postcondition.", Subject: tr.SourceRange().Ptr()})
			}
			diags = append(diags, d...)
		}
	}
	return diags
}

// checkWarnings evaluates c's assertions in ctx: each false one, or one
// that cannot be evaluated, is a warning; unknown ones are skipped.
func checkWarnings(c *Check, ctx *hcl.EvalContext) hcl.Diagnostics {
	_, diags := checkConditions(c.Asserts, ctx, "Check block assertion failed")
	for _, d := range diags {
		d.Severity = hcl.DiagWarning
		if d.Summary == "Check block assertion failed" {
			d.Detail = fmt.Sprintf("check %q: %s", c.Name, d.Detail)
		}
	}
	return diags
}

// ChecksWith evaluates the check blocks with the values valueOf has of
// the objects (the plan's, or those apply made), as OutputsWith does for
// outputs: plan reports what fails with what it knows, apply once the
// fabric is made. A failure is a warning; an assertion not known yet is
// skipped.
func (c *Config) ChecksWith(valueOf func(addrs.Instance) (cty.Value, bool)) hcl.Diagnostics {
	if len(c.Checks) == 0 {
		return nil
	}
	var refs []hcl.Traversal
	for _, ch := range c.Checks {
		for _, a := range ch.Asserts {
			rs, _ := a.traversals()
			refs = append(refs, rs...)
		}
	}
	ctx := c.contextWith(refs, valueOf)
	var diags hcl.Diagnostics
	for _, ch := range c.Checks {
		diags = append(diags, checkWarnings(ch, ctx)...)
	}
	return diags
}
