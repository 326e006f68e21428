package config

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
)

// Import is an import block, as Terraform's: when the state does not hold
// To, the plan adopts the object the agent holds as ID instead of creating
// one (what "rdmaform import To ID" does, planned and applied with the
// rest).
type Import struct {
	To addrs.Instance
	// ID is the agent's name for the object; "" for To's own (its
	// address, under the configuration's agent namespace), as the import
	// command defaults to.
	ID        string
	DeclRange hcl.Range

	toRange hcl.Range
	id      hcl.Expression // nil without an id attribute
	whole   bool           // to named a block without an index
	// forEach and key are a for_each import's: To holds the block, and
	// key (using each.key or each.value) gives each instance's key.
	forEach, key hcl.Expression
}

var importSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "to", Required: true}, {Name: "id"}, {Name: "for_each"}}}

func decodeImport(b *hcl.Block) (*Import, hcl.Diagnostics) {
	content, diags := b.Body.Content(importSchema)
	if diags.HasErrors() {
		return nil, diags
	}
	to := content.Attributes["to"]
	if fe, ok := content.Attributes["for_each"]; ok {
		return decodeImportForEach(b, to, fe.Expr, content.Attributes["id"])
	}
	addr, whole, d := movedAddress(to)
	diags = append(diags, d...)
	if diags.HasErrors() {
		return nil, diags
	}
	im := &Import{To: addr, DeclRange: b.DefRange, toRange: to.Expr.Range(), whole: whole}
	if a, ok := content.Attributes["id"]; ok {
		im.id = a.Expr
	}
	return im, diags
}

// checkImports finds each import block's instance and evaluates its id
// (variables, locals, functions, and objects' attributes known when
// planning): a target the configuration does not declare, or imported
// twice, is an error.
//
// When validating (variables without values are unknown), an id not
// known yet is not an error. With l.GenerateConfig, a target without a
// block goes to l.ImportsToGenerate.
func checkImports(cfg *Config, l *Loader) hcl.Diagnostics {
	validating := l.Validate
	l.ImportsToGenerate = nil
	diags := expandImports(cfg, validating)
	seen := map[addrs.Instance]*Import{}
	for _, im := range cfg.Imports {
		res := cfg.Resources[im.To.Resource]
		if res == nil && l.GenerateConfig {
			diags = append(diags, importToGenerate(cfg, l, im)...)
			continue
		}
		if res == nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Configuration for import target does not exist",
				Detail:  fmt.Sprintf("The configuration declares no %s: add the block the object is to be imported as.", im.To.Resource),
				Subject: im.toRange.Ptr()})
			continue
		}
		if im.whole && (res.Count != nil || res.ForEach != nil) {
			meta, example := "count", im.To.Resource.String()+"[0]"
			if res.ForEach != nil {
				meta, example = "for_each", im.To.Resource.String()+`["key"]`
			}
			if first := firstInstance(cfg, im.To.Resource); first != "" {
				example = first
			}
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Import target needs an index",
				Detail:  fmt.Sprintf("%s has %s: name the instance to import, such as %s.", im.To.Resource, meta, example),
				Subject: im.toRange.Ptr()})
			continue
		}
		if _, ok := cfg.Instances[im.To]; !ok {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Configuration for import target does not exist",
				Detail:  fmt.Sprintf("%s is not one of %s's instances: check its count or for_each.", im.To, im.To.Resource),
				Subject: im.toRange.Ptr()})
			continue
		}
		if prev, dup := seen[im.To]; dup {
			diags = append(diags, duplicateDiag(fmt.Sprintf("import of %s", im.To), im.DeclRange, prev.DeclRange))
			continue
		}
		seen[im.To] = im
		if im.id != nil {
			v, d := cfg.Eval(im.id)
			diags = append(diags, d...)
			if d.HasErrors() || validating && !v.IsWhollyKnown() {
				continue
			}
			if msg := importIDProblem(v); msg != "" {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid import id",
					Detail: msg, Subject: im.id.Range().Ptr()})
				continue
			}
			im.ID = v.AsString()
		}
	}
	return diags
}

// importIDProblem says what is wrong with an id's value, or "".
func importIDProblem(v cty.Value) string {
	switch {
	case !v.IsWhollyKnown():
		return "The id must be known when planning: it may use variables, locals and functions, not attributes known only after apply."
	case v.IsMarked():
		return "The id must not be sensitive: the plan shows it."
	case v.IsNull() || v.Type() != cty.String:
		return "The id must be a string: the agent's name for the object, such as \"endpoint.client[0]\"."
	case v.AsString() == "":
		return "The id must not be empty: leave it out to import the object the agent holds under the target's own address."
	}
	return ""
}

// firstInstance is the first of r's instances in address order ("" when
// it has none).
func firstInstance(cfg *Config, r addrs.Resource) string {
	var first *addrs.Instance
	for a := range cfg.Instances {
		if a.Resource == r && (first == nil || a.Less(*first)) {
			a := a
			first = &a
		}
	}
	if first == nil {
		return ""
	}
	return first.String()
}
