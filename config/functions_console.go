package config

import (
	"reflect"
	"sort"
	"strings"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// typeType carries a cty.Type as a value: what the console's type(x)
// returns, for the console to print (ConsoleType).
var typeType = cty.Capsule("type", reflect.TypeOf(cty.Type{}))

// typeFunc is Terraform's console-only type(value): the value's type.
var typeFunc = function.New(&function.Spec{
	Description: "Returns the type of the given value (only in the console).",
	Params:      []function.Parameter{{Name: "value", Type: cty.DynamicPseudoType, AllowDynamicType: true, AllowUnknown: true, AllowNull: true, AllowMarked: true}},
	Type:        function.StaticReturnType(typeType),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		ty := args[0].Type()
		return cty.CapsuleVal(typeType, &ty), nil
	},
})

// ConsoleType is the type a console's type(x) returned, when v is one.
// inside reports a type(x) within v (type([1]) is one; [type(1)] has one
// inside), which Terraform refuses: type() shows a type, it makes no
// value.
func ConsoleType(v cty.Value) (ty cty.Type, ok, inside bool) {
	if v.Type().Equals(typeType) {
		if v.IsKnown() && !v.IsNull() {
			return *v.EncapsulatedValue().(*cty.Type), true, false
		}
		return cty.NilType, false, true
	}
	_ = cty.Walk(v, func(_ cty.Path, x cty.Value) (bool, error) {
		if x.Type().Equals(typeType) {
			inside = true
		}
		return !inside, nil
	})
	return cty.NilType, false, inside
}

// FormatType writes a type as Terraform's console prints type(x): number,
// list(string), and objects and tuples one attribute or element a line,
// four spaces deep per level.
func FormatType(ty cty.Type) string {
	var b strings.Builder
	writeType(&b, ty, 0)
	return b.String()
}

func writeType(b *strings.Builder, ty cty.Type, depth int) {
	pad := func(d int) string { return strings.Repeat("    ", d) }
	switch {
	case ty == cty.NilType:
		b.WriteString("nil")
	case ty.IsObjectType():
		atys := ty.AttributeTypes()
		if len(atys) == 0 {
			b.WriteString("object({})")
			return
		}
		names := make([]string, 0, len(atys))
		for n := range atys {
			names = append(names, n)
		}
		sort.Strings(names)
		b.WriteString("object({\n")
		for _, n := range names {
			b.WriteString(pad(depth+1) + n + ": ")
			writeType(b, atys[n], depth+1)
			b.WriteString(",\n")
		}
		b.WriteString(pad(depth) + "})")
	case ty.IsTupleType():
		etys := ty.TupleElementTypes()
		if len(etys) == 0 {
			b.WriteString("tuple([])")
			return
		}
		b.WriteString("tuple([\n")
		for _, et := range etys {
			b.WriteString(pad(depth + 1))
			writeType(b, et, depth+1)
			b.WriteString(",\n")
		}
		b.WriteString(pad(depth) + "])")
	case ty.IsListType() || ty.IsSetType() || ty.IsMapType():
		switch {
		case ty.IsListType():
			b.WriteString("list(")
		case ty.IsSetType():
			b.WriteString("set(")
		default:
			b.WriteString("map(")
		}
		// A structural element goes on its own lines, one level deeper,
		// so the collection around it stays visible.
		et := ty.ElementType()
		if et.IsObjectType() || et.IsTupleType() {
			b.WriteString("\n" + pad(depth+1))
			writeType(b, et, depth+1)
			b.WriteString(",\n" + pad(depth))
		} else {
			writeType(b, et, depth)
		}
		b.WriteString(")")
	default:
		b.WriteString(ty.FriendlyName()) // string, number, bool, dynamic
	}
}
