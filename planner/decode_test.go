package planner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// The schema-guided decoder must agree with ctyjson.Unmarshal.
func TestDecodeAttributesAgreesWithCtyJSON(t *testing.T) {
	cfg := load(t, loopback)
	st := applied(t, mustPlan(t, cfg, nil, Options{}))
	for _, o := range st.Objects {
		ty := config.Schema(o.Addr.Kind).ImpliedType()
		want, err := ctyjson.Unmarshal(o.Attributes, ty)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeAttributes(config.Schema(o.Addr.Kind), o.Attributes)
		if err != nil {
			t.Fatalf("%s: %v", o.Addr, err)
		}
		if !got.RawEquals(want) {
			t.Fatalf("%s:\n got %#v\nwant %#v", o.Addr, got, want)
		}
	}
	ep := config.Schema(addrs.Endpoint)
	for _, bad := range []string{`{"port":"x"}`, `{"address":1}`, `{"nope":1}`, `{"qp":{"sq_sig_all":1}}`, `[`} {
		if _, err := decodeAttributes(ep, []byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
	v, err := decodeAttributes(ep, []byte(`{"port":7471.5}`))
	if err != nil || !v.GetAttr("port").RawEquals(cty.MustParseNumberVal("7471.5")) {
		t.Fatalf("fractional number: %v %#v", err, v)
	}
}

func TestDecodeAttributesEscapesAndSpace(t *testing.T) {
	ep := config.Schema(addrs.Endpoint)
	v, err := decodeAttributes(ep, []byte(" { \"address\" : \"a\\\"b\\u00e9\" , \"qp\" : null ,\"port\":-1e2 } "))
	if err != nil {
		t.Fatal(err)
	}
	if got := v.GetAttr("address").AsString(); got != "a\"bé" {
		t.Fatalf("address %q", got)
	}
	if !v.GetAttr("port").RawEquals(cty.NumberIntVal(-100)) || !v.GetAttr("qp").IsNull() {
		t.Fatalf("%#v", v)
	}
	for _, bad := range []string{`{"port":7471,}`, `{"port":7471} x`, `{"address":"x`, `{"port" 1}`} {
		if _, err := decodeAttributes(ep, []byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// Sharing nested blocks between objects must not change what any object
// decodes to, nor hide an error in a block whose text was seen before.
func TestDecodeSharedNestedBlocks(t *testing.T) {
	ep := config.Schema(addrs.Endpoint)
	docs := []string{
		`{"port":1,"qp":{"type":"rc","max_send_wr":32},"connect":{"private_data":"a\"}"}}`,
		`{"port":2,"qp":{"type":"rc","max_send_wr":32},"connect":{"private_data":"b"}}`,
		`{"port":3,"qp":{"type":"rc","max_send_wr":32} ,"connect":{"private_data":"a\"}"}}`,
		`{"port":4,"qp":{"type":"rc","max_send_wr":64},"connect":null}`,
		`{"port":5,"qp":{"type":"rc","max_send_wr":32}}`,
	}
	cache := nestedCache{}
	for _, d := range docs {
		want, wantF, err := decodeFields(ep, []byte(d))
		if err != nil {
			t.Fatal(err)
		}
		got, gotF, err := decodeFieldsShared(ep, []byte(d), cache)
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		if !got.RawEquals(want) {
			t.Fatalf("%s:\n got %#v\nwant %#v", d, got, want)
		}
		for _, b := range []string{"qp", "connect"} {
			g, w := gotF.block(b), wantF.block(b)
			if (g == nil) != (w == nil) || g != nil && len(g.vals) != len(w.vals) {
				t.Fatalf("%s: fields of %s differ", d, b)
			}
			if g != nil {
				for name, wv := range w.vals {
					if !g.vals[name].RawEquals(wv) {
						t.Fatalf("%s: %s.%d is %#v, want %#v", d, b, name, g.vals[name], wv)
					}
				}
			}
		}
	}
	if n := len(cache[ep.NestedBlock("qp").Block].byText); n != 2 {
		t.Fatalf("%d distinct qp blocks cached, want 2", n)
	}
	for _, bad := range []string{`{"qp":{"type":"rc","max_send_wr":"x"}}`, `{"qp":{"type":"rc","max_send_wr":32}`, `{"qp":{"type":"rc","max_send_wr":32},"qp2":1}`} {
		if _, _, err := decodeFieldsShared(ep, []byte(bad), cache); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// A state written before an attribute with a default existed (probe.mode)
// plans no change: the object was made with what is now the default.
func TestStateWithoutALaterDefaultPlansNoChange(t *testing.T) {
	cfg := load(t, triggersBase)
	st := applied(t, mustPlan(t, cfg, nil, Options{}))
	stripped := 0
	for _, o := range st.Objects {
		if s := strings.Replace(string(o.Attributes), `"mode":"send",`, "", 1); s != string(o.Attributes) {
			o.Attributes = []byte(s)
			stripped++
		}
	}
	if stripped == 0 {
		t.Fatal(`no object's state had "mode":"send" to take out`)
	}
	p := mustPlan(t, cfg, st, Options{})
	for _, c := range p.Changes {
		if c.Action != NoOp {
			t.Errorf("%s: %s %v", c.Addr, c.Action, c.Changed)
		}
	}
}

// Objects decoded through one cache (which reuses a scratch map per
// block) keep their own values, and their fields give each attribute and
// nested block as the value does.
func TestDecodeFieldsThroughOneCache(t *testing.T) {
	ep := config.Schema(addrs.Endpoint)
	cache := nestedCache{}
	var vals []cty.Value
	var fs []*fields
	for i := 0; i < 5; i++ {
		doc := fmt.Sprintf(`{"port":%d,"address":"10.0.0.%d","qp":{"type":"rc","max_send_wr":%d}}`, i, i, 32+i%2)
		v, f, err := decodeFieldsShared(ep, []byte(doc), cache)
		if err != nil {
			t.Fatal(err)
		}
		vals, fs = append(vals, v), append(fs, f)
	}
	for i, v := range vals {
		if got := v.GetAttr("port"); !got.RawEquals(cty.NumberIntVal(int64(i))) {
			t.Fatalf("object %d: port %#v after decoding the others", i, got)
		}
		for name := range v.Type().AttributeTypes() {
			if got := fs[i].attr(cty.NilVal, name); !got.RawEquals(v.GetAttr(name)) {
				t.Fatalf("object %d: fields give %s as %#v, the value %#v", i, name, got, v.GetAttr(name))
			}
		}
		for j, a := range ep.Attributes {
			if got := fs[i].attrAt(cty.NilVal, j, a.Name); !got.RawEquals(v.GetAttr(a.Name)) {
				t.Fatalf("object %d: attribute %d (%s) is %#v, the value's %#v", i, j, a.Name, got, v.GetAttr(a.Name))
			}
		}
		for j, nb := range ep.Blocks {
			got, bf := fs[i].blockAt(cty.NilVal, j, nb.Name)
			if !got.RawEquals(v.GetAttr(nb.Name)) || (bf == nil) != got.IsNull() {
				t.Fatalf("object %d: block %s is %#v (fields %v), the value's %#v", i, nb.Name, got, bf, v.GetAttr(nb.Name))
			}
		}
	}
}
