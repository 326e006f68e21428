package config

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
)

// decodeImportForEach decodes an import block with for_each, as
// Terraform's: to names the block and an index using each.key or
// each.value (endpoint.client[each.key]), and id may use them too.
func decodeImportForEach(b *hcl.Block, to *hcl.Attribute, forEach hcl.Expression, id *hcl.Attribute) (*Import, hcl.Diagnostics) {
	invalid := hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid import target",
		Detail:  "With for_each, to names a block and the key of each instance from each.key or each.value, such as endpoint.client[each.key].",
		Subject: to.Expr.Range().Ptr()}}
	ix, ok := to.Expr.(*hclsyntax.IndexExpr)
	if !ok {
		return nil, invalid
	}
	tr, d := hcl.AbsTraversalForExpr(ix.Collection)
	if d.HasErrors() || len(tr) != 2 || schemas[addrs.Kind(tr.RootName())] == nil {
		return nil, invalid
	}
	name, ok := tr[1].(hcl.TraverseAttr)
	if !ok {
		return nil, invalid
	}
	im := &Import{To: addrs.Instance{Resource: addrs.Resource{Kind: addrs.Kind(tr.RootName()), Name: name.Name}},
		DeclRange: b.DefRange, toRange: to.Expr.Range(), forEach: forEach, key: ix.Key}
	if id != nil {
		im.id = id.Expr
	}
	return im, nil
}

// expandImports turns each for_each import into one import per element:
// a map's (or object's) keys and values, a set's strings, or a list's
// indexes and elements, as each.key and each.value. When validating, a
// for_each not known yet expands to nothing.
func expandImports(cfg *Config, validating bool) hcl.Diagnostics {
	var diags hcl.Diagnostics
	out := cfg.Imports[:0:0]
	for _, im := range cfg.Imports {
		if im.forEach == nil {
			out = append(out, im)
			continue
		}
		errorf := func(rng hcl.Range, summary, format string, args ...any) {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(format, args...), Subject: rng.Ptr()})
		}
		v, d := cfg.Eval(im.forEach)
		diags = append(diags, d...)
		switch {
		case d.HasErrors():
			continue
		case !v.IsWhollyKnown():
			if !validating {
				errorf(im.forEach.Range(), "Invalid for_each argument", "The import's for_each must be known when planning: it may use variables, locals and functions, not attributes known only after apply.")
			}
			continue
		case v.IsNull():
			errorf(im.forEach.Range(), "Invalid for_each argument", "The import's for_each must be a map, a set of strings or a list, not null.")
			continue
		case !v.CanIterateElements():
			errorf(im.forEach.Range(), "Invalid for_each argument", "The import's for_each must be a map, a set of strings or a list; got %s.", typeWords(v.Type()))
			continue
		}
		v, _ = v.Unmark()
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			if v.Type().IsSetType() {
				if e.Type() != cty.String {
					errorf(im.forEach.Range(), "Invalid for_each argument", "A set for an import's for_each holds strings; it holds %s.", typeNoun(e.Type(), true))
					break
				}
				k = e
			}
			ctx := cfg.evalContext().NewChild()
			ctx.Variables = map[string]cty.Value{"each": cty.ObjectVal(map[string]cty.Value{"key": k, "value": e})}
			kv, d := cfg.evalIn(im.key, ctx)
			diags = append(diags, d...)
			if d.HasErrors() {
				continue
			}
			key, ok := keyOf(kv)
			if !ok {
				errorf(im.key.Range(), "Invalid import target", "The index in to must be a string or a whole number.")
				continue
			}
			x := &Import{To: addrs.Instance{Resource: im.To.Resource, Key: key}, DeclRange: im.DeclRange, toRange: im.toRange}
			if im.id != nil {
				idv, d := cfg.evalIn(im.id, ctx)
				diags = append(diags, d...)
				if d.HasErrors() {
					continue
				}
				if msg := importIDProblem(idv); msg != "" {
					errorf(im.id.Range(), "Invalid import id", "%s", msg)
					continue
				}
				x.ID = idv.AsString()
			}
			out = append(out, x)
		}
	}
	cfg.Imports = out
	return diags
}
