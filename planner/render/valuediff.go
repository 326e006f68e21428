package render

import (
	"fmt"
	"strings"

	"github.com/zclconf/go-cty/cty"
)

// valueDiff renders an update of a map or object (an output's) as
// Terraform does: only the keys that change, with their own symbols,
// nested maps and objects diffed in turn, and the count of those that do
// not. It reports false for values it leaves to value's "before -> after"
// (primitives, lists, unknown or null values, a map replaced by an object).
func valueDiff(c colorizer, before, after cty.Value, indent string) (string, bool) {
	if !before.IsWhollyKnown() || !after.IsKnown() || before.IsNull() || after.IsNull() {
		return "", false
	}
	before, _ = before.UnmarkDeep()
	after, _ = after.Unmark()
	bt, at := before.Type(), after.Type()
	isObj := bt.IsObjectType() && at.IsObjectType()
	if !isObj && !(bt.IsMapType() && at.IsMapType()) {
		return "", false
	}
	bm, am := before.AsValueMap(), after.AsValueMap()
	keys := sortedKeys(union(bm, am))
	type line struct {
		sym, key, text string
	}
	var lines []line
	unchanged := 0
	for _, k := range keys {
		bv, inBefore := bm[k]
		av, inAfter := am[k]
		switch {
		case !inBefore:
			lines = append(lines, line{"+", k, value(av, indent+"    ")})
		case !inAfter:
			lines = append(lines, line{"-", k, value(bv, indent+"    ") + " -> null"})
		case av.IsWhollyKnown() && bv.Equals(av).True():
			unchanged++
		default:
			if d, ok := valueDiff(c, bv, av, indent+"    "); ok {
				lines = append(lines, line{"~", k, d})
			} else {
				lines = append(lines, line{"~", k, value(bv, indent+"    ") + " -> " + value(av, indent+"    ")})
			}
		}
	}
	width := 0
	for _, l := range lines {
		width = max(width, len(hclKey(l.key)))
	}
	var b strings.Builder
	b.WriteString("{\n")
	for _, l := range lines {
		fmt.Fprintf(&b, "%s  %s %s = %s\n", indent, c.symbol(l.sym), pad(hclKey(l.key), width), l.text)
	}
	if unchanged > 0 {
		what := "element"
		if isObj {
			what = "attribute"
		}
		fmt.Fprintf(&b, "%s    %s\n", indent, hidden(unchanged, what))
	}
	b.WriteString(indent + "}")
	return b.String(), true
}

func union(a, b map[string]cty.Value) map[string]cty.Value {
	out := make(map[string]cty.Value, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}
