package config

import (
	"fmt"
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// Terraform's dynamic blocks, for the nested blocks of a listener or an
// endpoint. Each of those blocks appears at most once, so a dynamic block
// is how a configuration makes one optional:
//
//	dynamic "probe" {
//	  for_each = var.probe_interval == null ? [] : [var.probe_interval]
//	  content {
//	    interval = probe.value
//	  }
//	}
//
// for_each may produce no element (the block is omitted) or one (the
// content is the block, with the iterator naming that element).

// dynamicSchema is the body of a dynamic block.
var dynamicSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "for_each", Required: true}, {Name: "iterator"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "content"}},
}

// dynamicBlock is what makes a nested block's template dynamic.
type dynamicBlock struct {
	forEach  hcl.Expression
	iterator string
}

// addDynamic decodes a dynamic block of the schema's nested block types.
func (t *bodyTemplate) addDynamic(b *hcl.Block, fast bool) hcl.Diagnostics {
	typ := b.Labels[0]
	i := t.schema.blockIndex(typ)
	if i < 0 {
		return hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Unsupported block type",
			Detail:   fmt.Sprintf("Blocks of type %q are not expected here, so no dynamic block can generate them.%s", typ, DidYouMean(typ, t.schema.blockNames())),
			Subject:  b.LabelRanges[0].Ptr(),
		}}
	}
	if prev := t.blocks[i]; prev != nil {
		return hcl.Diagnostics{duplicateDiag(typ+" block", b.DefRange, prev.def)}
	}
	content, diags := b.Body.Content(dynamicSchema)
	if diags.HasErrors() {
		return diags
	}
	dyn := &dynamicBlock{forEach: content.Attributes["for_each"].Expr, iterator: typ}
	if a := content.Attributes["iterator"]; a != nil {
		name := hcl.ExprAsKeyword(a.Expr)
		if name == "" || slices.Contains(rootNames, name) {
			return append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid dynamic iterator name",
				Detail:   fmt.Sprintf("The iterator must be a single name that is not one of %q.", rootNames),
				Subject:  a.Expr.Range().Ptr(),
			})
		}
		dyn.iterator = name
	}
	var body hcl.Body
	for _, cb := range content.Blocks {
		if body != nil {
			return append(diags, duplicateDiag("content block", cb.DefRange, b.DefRange))
		}
		body = cb.Body
	}
	if body == nil {
		return append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Missing content block",
			Detail:   fmt.Sprintf("A dynamic %q block needs a content block: the %s block it generates.", typ, typ),
			Subject:  b.DefRange.Ptr(),
		})
	}
	c, cd := decodeTemplate(body, t.schema.Blocks[i].Block, b.DefRange, fast)
	diags = append(diags, cd...)
	c.dynamic = dyn
	// The content's references to the iterator are not references to
	// declarations; the for_each expression's are.
	c.traversals = slices.DeleteFunc(c.traversals, func(tr hcl.Traversal) bool { return tr.RootName() == dyn.iterator })
	c.traversals = append(c.traversals, dyn.forEach.Variables()...)
	c.static = false
	t.blocks[i] = c
	t.static = false
	return diags
}

// unknownDynamicForEach marks the error of a dynamic block whose for_each
// is not known: validate, where variables have no value yet, lets it pass
// (the block reads as unknown), as Terraform's validate does, and a plan
// does not repeat a variable's own error.
type unknownDynamicForEach struct{}

// withoutUnknownDynamicForEach returns diags without the errors of
// unknown dynamic for_each values that are not the configuration's fault:
// in validate mode all, otherwise those from a variable that has its own
// error.
func (e *evaluator) withoutUnknownDynamicForEach(diags hcl.Diagnostics) hcl.Diagnostics {
	out := diags[:0:0]
	for _, d := range diags {
		if _, ok := d.Extra.(unknownDynamicForEach); ok && (e.l.Validate || e.usesErroredVariable(d.Expression)) {
			continue
		}
		out = append(out, d)
	}
	return out
}

// dynamicContext evaluates a dynamic block's for_each and returns the
// context its content is evaluated in, or nil when it generates no
// block.
func (t *bodyTemplate) dynamicContext(ctx *hcl.EvalContext, typ string) (*hcl.EvalContext, hcl.Diagnostics) {
	d := t.dynamic
	rng := d.forEach.Range()
	bad := func(detail string) hcl.Diagnostics {
		return hcl.Diagnostics{{
			Severity: hcl.DiagError, Summary: "Invalid dynamic for_each value", Detail: detail,
			Subject: rng.Ptr(), Expression: d.forEach, EvalContext: ctx,
		}}
	}
	v, diags := d.forEach.Value(ctx)
	if diags.HasErrors() {
		return nil, diags
	}
	v, marks := v.Unmark()
	switch ty := v.Type(); {
	case v.IsNull():
		return nil, bad("Cannot use a null value in for_each.")
	case !v.IsKnown():
		diags := bad("The for_each value is known only after apply: it must be known when the configuration is loaded.")
		diags[0].Extra = unknownDynamicForEach{}
		return nil, diags
	case !(ty.IsListType() || ty.IsSetType() || ty.IsMapType() || ty.IsTupleType() || ty.IsObjectType()):
		return nil, bad(fmt.Sprintf("Cannot use %s in for_each. An iterable collection is required.", typeWords(ty)))
	}
	switch n := v.LengthInt(); n {
	case 0:
		return nil, nil
	case 1:
	default:
		return nil, bad(fmt.Sprintf("A %s block may appear at most once, and for_each has %d elements: give it none (to omit the block) or one.", typ, n))
	}
	it := v.ElementIterator()
	it.Next()
	key, val := it.Element()
	iter := cty.ObjectVal(map[string]cty.Value{"key": key.WithMarks(marks), "value": val.WithMarks(marks)})
	child := ctx.NewChild()
	child.Variables = map[string]cty.Value{d.iterator: iter}
	return child, nil
}
