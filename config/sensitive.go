package config

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// sensitiveMark marks, in the contexts attached to diagnostics, values
// derived from sensitive variables: hcl's diagnostic writer leaves marked
// values out of its "with var.x as ..." lines.
const sensitiveMark = "sensitive"

// sensitiveValue stands for a value a diagnostic does not show, as in
// Terraform.
const sensitiveValue = "(sensitive value)"

// sensitiveDetail is the Extra of a diagnostic whose Detail shows values:
// redacted is the Detail without them, for when one is sensitive.
type sensitiveDetail struct {
	redacted string
	exprs    []hcl.Expression // the values' expressions
	keys     []string         // or the nodes (blocks) they come from
}

// shows reports whether the detail shows a sensitive value: one of the
// expressions is sensitive in ctx, or one of the nodes is tainted.
func (s *sensitiveDetail) shows(ctx *hcl.EvalContext, tainted map[string]bool) bool {
	for _, k := range s.keys {
		if tainted[k] {
			return true
		}
	}
	if ctx == nil {
		return false
	}
	for _, x := range s.exprs {
		if v, _ := x.Value(ctx); v != cty.NilVal && v.ContainsMarked() {
			return true
		}
	}
	return false
}

// redactSensitive returns diags with every EvalContext replaced by a copy
// in which the values derived from a sensitive variable are marked, so
// that rendering a diagnostic does not print them. A value is derived from
// a sensitive variable when its node (a variable, local or block) refers
// to one, directly or through other nodes; a block whose count or
// for_each does is tainted as a whole, and then so are count and each.
func (e *evaluator) redactSensitive(diags hcl.Diagnostics) hcl.Diagnostics {
	tainted := map[string]bool{}
	some := false
	for name, v := range e.decl.variables {
		if v.Sensitive {
			tainted["var."+name] = true
			some = true
		}
	}
	if !some {
		return diags
	}
	state := map[string]int{} // 1 visiting, 2 done
	var visit func(key string) bool
	visit = func(key string) bool {
		switch state[key] {
		case 1: // a cycle: decided by its other members
			return tainted[key]
		case 2:
			return tainted[key]
		}
		state[key] = 1
		for _, r := range e.refs[key] {
			if k := r.key(); k != "" && visit(k) {
				tainted[key] = true
			}
		}
		state[key] = 2
		return tainted[key]
	}
	for key := range e.graph.nodes {
		visit(key)
	}
	secrets := e.sensitiveStrings(tainted)
	e.cfg.secrets = secrets
	out := make(hcl.Diagnostics, len(diags))
	for i, d := range diags {
		out[i] = scrub(d, secrets)
		d = out[i]
		sd, _ := d.Extra.(*sensitiveDetail)
		if d.EvalContext == nil || d.Expression == nil {
			if sd != nil && d.Detail != sd.redacted && sd.shows(nil, tainted) {
				c := *d
				c.Detail = sd.redacted
				out[i] = &c
			}
			continue
		}
		if ctx, changed := redactContext(d.EvalContext, tainted); changed {
			c := *d
			c.EvalContext = ctx
			if sd != nil && sd.shows(ctx, tainted) {
				c.Detail = sd.redacted
			}
			out[i] = &c
		}
	}
	return out
}

// sensitiveStrings are the texts of the sensitive variables' and tainted
// locals' values (their strings and numbers, deeply): what a message from
// a function or hcl itself ("cannot convert \"s3cret\" to number") would
// quote of them.
func (e *evaluator) sensitiveStrings(tainted map[string]bool) []string {
	var out []string
	collect := func(v cty.Value) {
		cty.Walk(v, func(_ cty.Path, x cty.Value) (bool, error) {
			x, _ = x.Unmark()
			if !x.IsKnown() || x.IsNull() {
				return true, nil
			}
			switch x.Type() {
			case cty.String:
				out = append(out, x.AsString())
			case cty.Number:
				out = append(out, NumberString(x))
			}
			return true, nil
		})
	}
	for _, v := range e.decl.variables {
		if v.Sensitive {
			collect(v.Value)
		}
	}
	for name, v := range e.locals {
		if tainted["local."+name] {
			collect(v)
		}
	}
	// Longest first, so that a secret containing another is replaced whole.
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// scrub returns d with the sensitive texts its summary and detail quote
// replaced by (sensitive value): hcl and the functions quote the values
// they could not use. A bare text is left alone: it may be any word.
func scrub(d *hcl.Diagnostic, secrets []string) *hcl.Diagnostic {
	if len(secrets) == 0 {
		return d
	}
	clean := func(s string) string {
		for _, x := range secrets {
			if x == "" {
				continue
			}
			s = strings.ReplaceAll(s, strconv.Quote(x), sensitiveValue)
		}
		return s
	}
	summary, detail := clean(d.Summary), clean(d.Detail)
	if summary == d.Summary && detail == d.Detail {
		return d
	}
	c := *d
	c.Summary, c.Detail = summary, detail
	return &c
}

// redactContext copies ctx (and its parents) with the tainted values
// marked; changed is false when nothing needed marking.
func redactContext(ctx *hcl.EvalContext, tainted map[string]bool) (*hcl.EvalContext, bool) {
	var chain []*hcl.EvalContext
	for c := ctx; c != nil; c = c.Parent() {
		chain = append(chain, c)
	}
	// Walk from the root so that each copy's parent is the copied parent.
	var out *hcl.EvalContext
	changed, taint := false, false
	for i := len(chain) - 1; i >= 0; i-- {
		c := chain[i]
		vars := make(map[string]cty.Value, len(c.Variables))
		for root, v := range c.Variables {
			switch root {
			case "count", "each":
				vars[root] = v
				continue
			}
			if !v.IsKnown() || v.IsNull() || !v.Type().IsObjectType() {
				vars[root] = v
				continue
			}
			attrs := map[string]cty.Value{}
			marked := false
			for name := range v.Type().AttributeTypes() {
				av := v.GetAttr(name)
				if tainted[root+"."+name] {
					av = av.Mark(sensitiveMark)
					marked = true
				}
				attrs[name] = av
			}
			if marked {
				changed, taint = true, true
				vars[root] = cty.ObjectVal(attrs)
			} else {
				vars[root] = v
			}
		}
		if out == nil {
			out = &hcl.EvalContext{Functions: c.Functions}
		} else {
			out = out.NewChild()
			out.Functions = c.Functions
		}
		out.Variables = vars
	}
	if taint {
		// count and each of a block that refers to a sensitive value may
		// come from it (for_each = var.secret_map).
		for c := out; c != nil; c = c.Parent() {
			for _, root := range []string{"count", "each"} {
				if v, ok := c.Variables[root]; ok {
					c.Variables[root] = v.Mark(sensitiveMark)
				}
			}
		}
	}
	return out, changed
}

// exprValue is the variable's value as expressions see it: marked when
// the variable is sensitive, so that what is computed from it is marked
// too (until nonsensitive), as in Terraform. Objects' values are not
// marked (evalBodyMapOnce removes the marks): the taint of redactSensitive
// follows values through blocks for diagnostics.
func (v *Variable) exprValue() cty.Value {
	if v.Sensitive {
		return v.Value.Mark(sensitiveMark)
	}
	return v.Value
}

// sensitiveFunc is Terraform's sensitive: its argument, marked as a
// sensitive variable's value is.
var sensitiveFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "value", Type: cty.DynamicPseudoType,
		AllowUnknown: true, AllowNull: true, AllowMarked: true, AllowDynamicType: true}},
	Type: func(args []cty.Value) (cty.Type, error) { return args[0].Type(), nil },
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		return args[0].Mark(sensitiveMark), nil
	},
})

// nonsensitiveFunc is Terraform's nonsensitive: its argument without the
// sensitive mark. As in Terraform since v1.6, a value that is not
// sensitive is returned as it is, not refused.
var nonsensitiveFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "value", Type: cty.DynamicPseudoType,
		AllowUnknown: true, AllowNull: true, AllowMarked: true, AllowDynamicType: true}},
	Type: func(args []cty.Value) (cty.Type, error) { return args[0].Type(), nil },
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		v, marks := args[0].Unmark()
		delete(marks, sensitiveMark)
		return v.WithMarks(marks), nil
	},
})

// unmarkSensitive returns v without marks, and whether it had the
// sensitive mark. Values leave the package unmarked: the commands decide
// what to show by the declarations (an output's sensitive argument).
func unmarkSensitive(v cty.Value) (cty.Value, bool) {
	if v == cty.NilVal || !v.ContainsMarked() {
		return v, false
	}
	u, marks := v.UnmarkDeep()
	return u, marks.Has(sensitiveMark)
}

// checkSensitiveOutputs reports outputs not marked sensitive whose value
// is sensitive (comes from a sensitive variable or sensitive(), directly
// or through locals, and not through nonsensitive()), as Terraform does:
// plan, apply and output would show it, through the blocks it references
// too (see markSensitive).
func (e *evaluator) checkSensitiveOutputs() hcl.Diagnostics {
	var diags hcl.Diagnostics
	for name, o := range e.decl.outputs {
		if o.Sensitive || o.expr == nil || !o.marked {
			continue
		}
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Output refers to sensitive values",
			Detail: fmt.Sprintf("The value of output %q comes from a sensitive value, and plan, apply and output would show it. "+
				"If it is meant to be shown only when asked for by name, mark the output sensitive:\n    sensitive = true\n"+
				"If it is derived from a sensitive value in a way that reveals nothing secret, nonsensitive() says so.", name),
			Subject: o.expr.Range().Ptr(),
		})
	}
	return diags
}

// sensitivePaths gathers, while an instance is evaluated, the paths of
// its attributes whose value is sensitive. Nothing is allocated unless
// one is.
type sensitivePaths struct {
	paths []cty.Path
}

// add records the attribute name of the body at (its block names joined
// by dots, "" for the top level).
func (s *sensitivePaths) add(at, name string) {
	var p cty.Path
	for at != "" {
		b, rest, _ := strings.Cut(at, ".")
		p = append(p, cty.GetAttrStep{Name: b})
		at = rest
	}
	s.paths = append(s.paths, append(p, cty.GetAttrStep{Name: name}))
}

// markSensitive marks the attributes of an instance's value at paths, for
// the expressions that reference it: what another block computes from a
// sensitive attribute is sensitive too, as in Terraform. The instance's
// own Value stays unmarked.
func markSensitive(v cty.Value, paths []cty.Path) cty.Value {
	if len(paths) == 0 {
		return v
	}
	pvm := make([]cty.PathValueMarks, len(paths))
	for i, p := range paths {
		pvm[i] = cty.PathValueMarks{Path: p, Marks: cty.NewValueMarks(sensitiveMark)}
	}
	return v.MarkWithPaths(pvm)
}
