package render

import (
	"strconv"
	"strings"

	"github.com/rdmaform/rdmaform/config"
	"github.com/zclconf/go-cty/cty"
)

const knownAfterApply = "(known after apply)"

// value renders a primitive value as HCL; collections (outputs only) are
// laid out over several lines at indent.
func value(v cty.Value, indent string) string {
	switch {
	case !v.IsKnown():
		return knownAfterApply
	case v.IsNull():
		return "null"
	}
	v, _ = v.UnmarkDeep()
	ty := v.Type()
	switch {
	case ty == cty.String:
		return strconv.Quote(v.AsString())
	case ty == cty.Number:
		return config.NumberString(v)
	case ty == cty.Bool:
		return strconv.FormatBool(v.True())
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType():
		if v.LengthInt() == 0 {
			return "[]"
		}
		var b strings.Builder
		b.WriteString("[\n")
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			b.WriteString(indent + "    " + value(e, indent+"    ") + ",\n")
		}
		b.WriteString(indent + "]")
		return b.String()
	case ty.IsMapType() || ty.IsObjectType():
		if v.LengthInt() == 0 {
			return "{}"
		}
		m := v.AsValueMap()
		keys := sortedKeys(m)
		width := 0
		for _, k := range keys {
			width = max(width, len(hclKey(k)))
		}
		var b strings.Builder
		b.WriteString("{\n")
		for _, k := range keys {
			b.WriteString(indent + "    " + pad(hclKey(k), width) + " = " + value(m[k], indent+"    ") + "\n")
		}
		b.WriteString(indent + "}")
		return b.String()
	}
	return ty.FriendlyName()
}

func pad(s string, width int) string {
	if len(s) >= width {
		return s
	}
	return s + strings.Repeat(" ", width-len(s))
}

func hclKey(k string) string {
	for i, r := range k {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && (r == '-' || r >= '0' && r <= '9')) {
			return strconv.Quote(k)
		}
	}
	if k == "" {
		return `""`
	}
	return k
}
