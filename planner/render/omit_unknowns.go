package render

import "github.com/zclconf/go-cty/cty"

// omitUnknowns is v without its unknown values, as Terraform's
// planned_values give an object: an unknown attribute or map element is
// left out, and an unknown list element is null (elements keep their
// places). cty.NilVal when v itself is unknown.
func omitUnknowns(v cty.Value) cty.Value {
	if v == cty.NilVal || !v.IsKnown() {
		return cty.NilVal
	}
	ty := v.Type()
	switch {
	case v.IsNull() || ty.IsPrimitiveType():
		return v
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType():
		var elems []cty.Value
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			if k := omitUnknowns(e); k != cty.NilVal {
				elems = append(elems, k)
			} else {
				elems = append(elems, cty.NullVal(e.Type()))
			}
		}
		return cty.TupleVal(elems)
	case ty.IsMapType() || ty.IsObjectType():
		attrs := map[string]cty.Value{}
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			if kept := omitUnknowns(e); kept != cty.NilVal {
				attrs[k.AsString()] = kept
			}
		}
		return cty.ObjectVal(attrs)
	}
	return v
}
