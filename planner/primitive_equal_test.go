package planner

import (
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// primitiveEqual, the diff's shortcut, must say what RawEquals says for
// every pair of the known values an attribute can hold.
func TestPrimitiveEqualAgreesWithRawEquals(t *testing.T) {
	vals := []cty.Value{
		cty.NullVal(cty.String), cty.NullVal(cty.Number), cty.NullVal(cty.Bool), cty.NullVal(cty.DynamicPseudoType),
		cty.StringVal(""), cty.StringVal("a"), cty.StringVal("7"),
		cty.True, cty.False,
		cty.NumberIntVal(0), cty.NumberIntVal(7), cty.NumberIntVal(-7), cty.NumberIntVal(1 << 62),
		cty.MustParseNumberVal("7.0"), cty.MustParseNumberVal("7.5"), cty.MustParseNumberVal("1e30"), cty.MustParseNumberVal("1000000000000000000000000000001"),
		cty.MustParseNumberVal("-0"), cty.NumberFloatVal(0.1), cty.MustParseNumberVal("0.1"),
		cty.StringVal("a").Mark("secret"), cty.NumberIntVal(7).Mark("secret"), cty.NullVal(cty.String).Mark("secret"),
	}
	for _, x := range vals {
		for _, y := range vals {
			if got, want := primitiveEqual(x, y), x.RawEquals(y); got != want {
				t.Errorf("primitiveEqual(%#v, %#v) = %v, RawEquals says %v", x, y, got, want)
			}
		}
	}
}
