package apply

import (
	"context"
	"math/big"
	"testing"

	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/state"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// marshalValue writes exactly what ctyjson writes.
func TestMarshalValueMatchesCtyJSON(t *testing.T) {
	neg0 := new(big.Float).Neg(big.NewFloat(0))
	huge, _ := new(big.Float).SetString("123456789012345678901234567890")
	values := []cty.Value{
		cty.StringVal("plain"),
		cty.StringVal(`quote " backslash \ <html> & é ☃ ` + "\x01\n\t\u2028"),
		cty.StringVal(""),
		cty.NumberIntVal(0), cty.NumberIntVal(-17), cty.NumberIntVal(1 << 62),
		cty.NumberFloatVal(1.5), cty.NumberFloatVal(-0.25), cty.NumberVal(neg0), cty.NumberVal(huge),
		cty.True, cty.False,
		cty.NullVal(cty.String), cty.NullVal(cty.Object(map[string]cty.Type{"a": cty.Number})),
		cty.ObjectVal(map[string]cty.Value{
			"id": cty.StringVal("endpoint.e[3]"), "port": cty.NumberIntVal(7471), "pd": cty.NullVal(cty.String),
			"qp":    cty.ObjectVal(map[string]cty.Value{"max_send_wr": cty.NumberIntVal(16), "sq_sig_all": cty.False}),
			"tags":  cty.ListVal([]cty.Value{cty.StringVal("b"), cty.StringVal("a")}),
			"set":   cty.SetVal([]cty.Value{cty.NumberIntVal(3), cty.NumberIntVal(1)}),
			"tuple": cty.TupleVal([]cty.Value{cty.StringVal("x"), cty.NumberIntVal(2)}),
			"map":   cty.MapVal(map[string]cty.Value{"z": cty.True, "a": cty.False}),
			"empty": cty.ListValEmpty(cty.String), "Upper": cty.StringVal("u"), "a<b": cty.StringVal("k"),
		}),
	}
	for _, v := range values {
		want, err := ctyjson.Marshal(v, v.Type())
		if err != nil {
			t.Fatal(err)
		}
		got, err := marshalValue(v)
		if err != nil || string(got) != string(want) {
			t.Errorf("%#v:\n got %s (%v)\nwant %s", v, got, err, want)
		}
	}
	for _, v := range []cty.Value{
		cty.ObjectVal(map[string]cty.Value{"a": cty.UnknownVal(cty.String)}),
		cty.StringVal("secret").Mark("sensitive"),
		cty.PositiveInfinity,
	} {
		if _, err := marshalValue(v); err == nil {
			t.Errorf("%#v: no error", v)
		}
	}
}

// An applied object encodes as ctyjson encodes the whole value with the
// fabric's facts in place and the remaining unknowns null.
func TestAppliedMarshalMatchesCtyJSON(t *testing.T) {
	cfg := load(t, loopback)
	p, diags := planner.Make(context.Background(), cfg, nil, planner.Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	facts := state.Facts{AgentHandle: "h", Status: "established", Device: "rxe0", PortNum: 1, QPNum: 17, LocalAddr: "10.77.0.1", LocalPort: 4242}
	planned := []cty.Value{
		cty.ObjectVal(map[string]cty.Value{
			"id": cty.UnknownVal(cty.String), "qp_num": cty.UnknownVal(cty.Number), "name": cty.StringVal("x"),
			"nested": cty.ObjectVal(map[string]cty.Value{"a": cty.UnknownVal(cty.Number), "b": cty.NumberIntVal(2)}),
			"list":   cty.ListVal([]cty.Value{cty.UnknownVal(cty.String), cty.StringVal("y")}),
			"set":    cty.SetVal([]cty.Value{cty.UnknownVal(cty.String), cty.StringVal("y")}),
		}),
		cty.NullVal(cty.Object(map[string]cty.Type{"id": cty.String})),
	}
	for _, c := range p.Changes {
		planned = append(planned, c.AfterValue())
	}
	for _, v := range planned {
		a := appliedOf(v, facts, "protection_domain.rxe", addrs.Instance{})
		want, werr := ctyjson.Marshal(a.value(), a.value().Type())
		got, err := a.marshal()
		if string(got) != string(want) || (err == nil) != (werr == nil) {
			t.Errorf("%#v:\n got %s (%v)\nwant %s (%v)", v, got, err, want, werr)
		}
		if !v.IsNull() && v.Type().HasAttribute("id") && !a.attr("id").RawEquals(a.value().GetAttr("id")) {
			t.Errorf("id %#v, value has %#v", a.attr("id"), a.value().GetAttr("id"))
		}
	}
}
