package config

import (
	"fmt"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// Condition is a precondition or postcondition block of a lifecycle, as
// Terraform's: Condition must be true, else the plan (precondition) or
// apply (postcondition, which may use self: the object as made) fails
// with ErrorMessage.
type Condition struct {
	Condition, ErrorMessage hcl.Expression
	DeclRange               hcl.Range
}

var conditionSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "condition", Required: true}, {Name: "error_message", Required: true},
}}

func decodeCondition(b *hcl.Block) (*Condition, hcl.Diagnostics) {
	content, diags := b.Body.Content(conditionSchema)
	if diags.HasErrors() {
		return nil, diags
	}
	return &Condition{Condition: content.Attributes["condition"].Expr, ErrorMessage: content.Attributes["error_message"].Expr, DeclRange: b.DefRange}, diags
}

// traversals are the references of c's expressions, without those to
// self (a postcondition's object, checked on their own).
func (c *Condition) traversals() (refs, self []hcl.Traversal) {
	for _, e := range []hcl.Expression{c.Condition, c.ErrorMessage} {
		for _, tr := range e.Variables() {
			if tr.RootName() == "self" {
				self = append(self, tr)
			} else {
				refs = append(refs, tr)
			}
		}
	}
	return refs, self
}

// conditionTraversals are the references of the block's conditions:
// refs to other objects and values, self those of postconditions to their
// object. self in a precondition is an error: the object is not made yet.
func (r *Resource) conditionTraversals() (refs, self []hcl.Traversal, diags hcl.Diagnostics) {
	for _, c := range r.Lifecycle.Preconditions {
		rs, ss := c.traversals()
		refs = append(refs, rs...)
		for _, tr := range ss {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid reference",
				Detail: "self is the object a postcondition checks; a precondition is checked before it is made.", Subject: tr.SourceRange().Ptr()})
		}
	}
	for _, c := range r.Lifecycle.Postconditions {
		rs, ss := c.traversals()
		refs, self = append(refs, rs...), append(self, ss...)
	}
	return refs, self, diags
}

// withoutSelf returns the preconditions that do not refer to self: those
// that do have their error already (see conditionTraversals), and cannot
// be evaluated.
func withoutSelf(conds []*Condition) []*Condition {
	out := conds[:0:0]
	for _, c := range conds {
		if _, self := c.traversals(); len(self) == 0 {
			out = append(out, c)
		}
	}
	return out
}

// checkSelfReferences reports self.x references to attributes kind's
// schema does not have.
func checkSelfReferences(kind addrs.Kind, trs []hcl.Traversal) hcl.Diagnostics {
	var diags hcl.Diagnostics
	schema := schemas[kind]
	for _, tr := range trs {
		if len(tr) < 2 {
			continue // self as a whole
		}
		a, ok := tr[1].(hcl.TraverseAttr)
		if !ok || schema.attrIndex(a.Name) >= 0 || schema.blockIndex(a.Name) >= 0 {
			continue
		}
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unsupported attribute",
			Detail:  fmt.Sprintf("%s has no attribute named %q.%s", capitalize(withArticle(string(kind))), a.Name, DidYouMean(a.Name, schema.names())),
			Subject: tr.SourceRange().Ptr()})
	}
	return diags
}

// checkConditions evaluates conditions in ctx: a false condition is an
// error with its message; one not known yet (it uses values known only
// after apply) is skipped, and deferred reports whether any was.
func checkConditions(conds []*Condition, ctx *hcl.EvalContext, summary string) (deferred bool, diags hcl.Diagnostics) {
	for _, c := range conds {
		v, d := c.Condition.Value(ctx)
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		v, _ = v.UnmarkDeep()
		if !v.IsKnown() {
			deferred = true
			continue
		}
		bad := func(detail string) {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid condition result",
				Detail: detail, Subject: c.Condition.Range().Ptr(), Expression: c.Condition, EvalContext: ctx})
		}
		if v.IsNull() {
			bad("The condition is null: it must be true or false.")
			continue
		}
		b, err := convert.Convert(v, cty.Bool)
		if err != nil {
			bad(fmt.Sprintf("The condition must be true or false: %s.", err))
			continue
		}
		if b.True() {
			continue
		}
		msg, d := c.ErrorMessage.Value(ctx)
		text := "The condition is false."
		if !d.HasErrors() {
			if m, err := convert.Convert(msg, cty.String); err == nil && m.IsKnown() && !m.IsNull() {
				m, marks := m.UnmarkDeep()
				text = m.AsString()
				if marks.Has(sensitiveMark) {
					// Terraform's words: the message is not shown.
					text = "The error message included a sensitive value, so it will not be displayed."
				}
			}
		}
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary,
			Detail: text, Subject: c.Condition.Range().Ptr(), Expression: c.Condition, EvalContext: ctx})
	}
	return deferred, diags
}

// checkOutputPreconditions checks the outputs' preconditions with the
// values known when loading, as Terraform checks them when it evaluates
// the output; one using values known only after apply is left to then
// (it is not checked).
func (e *evaluator) checkOutputPreconditions() hcl.Diagnostics {
	names := make([]string, 0, len(e.cfg.Outputs))
	for n, o := range e.cfg.Outputs {
		if len(o.Preconditions) > 0 {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return nil
	}
	sort.Strings(names)
	ctx := e.cfg.evalContext()
	var diags hcl.Diagnostics
	for _, n := range names {
		_, d := checkConditions(e.cfg.Outputs[n].Preconditions, ctx, "Output value precondition failed")
		for _, x := range d {
			if x.Summary == "Output value precondition failed" {
				x.Detail = fmt.Sprintf("output %q: %s", n, x.Detail)
			}
		}
		diags = append(diags, d...)
	}
	return diags
}
