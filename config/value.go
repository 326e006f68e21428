package config

import (
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/zclconf/go-cty/cty"
)

// FormatValue renders a value in HCL syntax for people, as terraform
// console does: unknown values are (known after apply), and values derived
// from a sensitive variable or sensitive() (the console's evaluations keep
// their marks) are (sensitive value).
func FormatValue(v cty.Value, indent int) string {
	var b strings.Builder
	formatValue(&b, v, indent, false)
	return b.String()
}

// FormatConsoleValue is FormatValue as terraform console and terraform
// output show a value: sets, lists and maps wrapped in toset(...),
// tolist(...) and tomap(...) (so that they are told from tuples and
// objects), every key quoted, and strings of several lines as heredocs.
func FormatConsoleValue(v cty.Value) string {
	var b strings.Builder
	formatValue(&b, v, 0, true)
	return b.String()
}

func formatValue(b *strings.Builder, v cty.Value, indent int, console bool) {
	pad := strings.Repeat("  ", indent)
	switch {
	case v.HasMark(sensitiveMark):
		b.WriteString(sensitiveValue)
		return
	case !v.IsKnown():
		b.WriteString("(known after apply)")
		return
	case v.IsNull():
		b.WriteString("null")
		return
	}
	v, _ = v.Unmark()
	ty := v.Type()
	if console {
		wrapper := ""
		switch {
		case ty.IsSetType():
			wrapper = "toset"
		case ty.IsListType():
			wrapper = "tolist"
		case ty.IsMapType():
			wrapper = "tomap"
		}
		if wrapper != "" {
			b.WriteString(wrapper + "(")
			defer b.WriteString(")")
		}
		// A heredoc holds exactly a string of lines each ending with a
		// newline; any other string is quoted, so that what is shown
		// reads back as the same value.
		if ty == cty.String && indent == 0 {
			s := v.AsString()
			body := strings.TrimSuffix(s, "\n")
			if body != s && strings.Contains(body, "\n") && !slices.Contains(strings.Split(body, "\n"), "EOT") {
				b.WriteString("<<EOT\n" + body + "\nEOT")
				return
			}
		}
	}
	switch {
	case ty == cty.String:
		b.WriteString(strconv.Quote(v.AsString()))
	case ty == cty.Number:
		b.WriteString(NumberString(v))
	case ty == cty.Bool:
		b.WriteString(strconv.FormatBool(v.True()))
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType():
		if v.LengthInt() == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for it := v.ElementIterator(); it.Next(); {
			_, ev := it.Element()
			b.WriteString(pad + "  ")
			formatValue(b, ev, indent+1, console)
			b.WriteString(",\n")
		}
		b.WriteString(pad + "]")
	case ty.IsMapType() || ty.IsObjectType():
		if v.LengthInt() == 0 {
			b.WriteString("{}")
			return
		}
		m := v.AsValueMap()
		keys := make([]string, 0, len(m))
		width := 0
		for k := range m {
			keys = append(keys, k)
			width = max(width, len(k))
		}
		sort.Strings(keys)
		b.WriteString("{\n")
		for _, k := range keys {
			name := k
			if !hclIdent(k) || console {
				name = strconv.Quote(k)
			}
			if console {
				width = 0 // the console quotes every key and aligns none, as Terraform's
			}
			b.WriteString(pad + "  " + name + strings.Repeat(" ", max(width-len(name), 0)) + " = ")
			formatValue(b, m[k], indent+1, console)
			b.WriteString("\n")
		}
		b.WriteString(pad + "}")
	default:
		b.WriteString(ty.FriendlyName())
	}
}

func hclIdent(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && (r == '-' || r >= '0' && r <= '9')) {
			return false
		}
	}
	return s != ""
}

// NumberString writes a number as big.Float's Text('f', -1) does, and
// integers (nearly every number rdmaform shows: ports, QP numbers, caps)
// without its costly shortest-decimal search.
func NumberString(v cty.Value) string {
	f := v.AsBigFloat()
	if f.IsInt() && !(f.Sign() == 0 && f.Signbit()) {
		if i, acc := f.Int64(); acc == big.Exact {
			return strconv.FormatInt(i, 10)
		}
	}
	return f.Text('f', -1)
}
