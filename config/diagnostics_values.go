package config

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// expressionValues are the values of d's expression's references in its
// context, as HCL's text writer shows them after "with" (the same
// references, skipped and ordered alike, with the same wording): known,
// not sensitive, each once, sorted. A diagnostic without an expression
// and a context has none.
func expressionValues(d *hcl.Diagnostic) []JSONExpressionValue {
	out := []JSONExpressionValue{}
	if d.Expression == nil || d.EvalContext == nil {
		return out
	}
	seen := map[string]bool{}
	for _, tr := range d.Expression.Variables() {
		v, diags := tr.TraverseAbs(d.EvalContext)
		if diags.HasErrors() || !v.IsKnown() {
			continue
		}
		name := TraversalString(tr)
		if seen[name] {
			continue
		}
		switch {
		case v.IsNull():
			out = append(out, JSONExpressionValue{Traversal: name, Statement: "is null"})
		case v.IsMarked():
			continue
		default:
			out = append(out, JSONExpressionValue{Traversal: name, Statement: "is " + compactValue(v)})
		}
		seen[name] = true
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Traversal < out[j].Traversal })
	return out
}

// TraversalString writes a traversal as HCL's text writer does: indexes
// of a primitive type as values, others as "...".
func TraversalString(tr hcl.Traversal) string {
	var b strings.Builder
	for _, step := range tr {
		switch s := step.(type) {
		case hcl.TraverseRoot:
			b.WriteString(s.Name)
		case hcl.TraverseAttr:
			b.WriteString("." + s.Name)
		case hcl.TraverseIndex:
			if s.Key.Type().IsPrimitiveType() {
				b.WriteString("[" + compactValue(s.Key) + "]")
			} else {
				b.WriteString("[...]")
			}
		}
	}
	return b.String()
}

// compactValue describes a value in a few words, as HCL's text writer
// does: 7471, "10.77.0.1", set of object with 1 element.
func compactValue(v cty.Value) string {
	ty := v.Type()
	switch {
	case v.IsNull():
		return "null"
	case !v.IsKnown():
		return "(not yet known)"
	case ty == cty.Bool:
		return fmt.Sprint(v.True())
	case ty == cty.Number:
		return v.AsBigFloat().Text('g', 10)
	case ty == cty.String:
		return fmt.Sprintf("%q", v.AsString())
	case ty.IsCollectionType() || ty.IsTupleType():
		switch n := v.LengthInt(); n {
		case 0:
			return "empty " + ty.FriendlyName()
		case 1:
			return ty.FriendlyName() + " with 1 element"
		default:
			return fmt.Sprintf("%s with %d elements", ty.FriendlyName(), n)
		}
	case ty.IsObjectType():
		atys := ty.AttributeTypes()
		switch len(atys) {
		case 0:
			return "object with no attributes"
		case 1:
			for name := range atys {
				return fmt.Sprintf("object with 1 attribute %q", name)
			}
		}
		return fmt.Sprintf("object with %d attributes", len(atys))
	}
	return ty.FriendlyName()
}
