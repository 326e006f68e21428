package apply

import (
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
)

// An object is made only once its configured attributes are known: the
// computed ones and pd may still be unknown, nothing else, whether at the
// top or in a nested block.
func TestUnknownsBesidesPD(t *testing.T) {
	inst := &config.Instance{Addr: addrs.Instance{Resource: addrs.Resource{Kind: addrs.Endpoint, Name: "e"}}}
	ty := config.Schema(addrs.Endpoint).ImpliedType()
	with := func(set map[string]cty.Value) cty.Value {
		m := map[string]cty.Value{}
		for name, aty := range ty.AttributeTypes() {
			m[name] = cty.NullVal(aty)
		}
		m["address"], m["port"] = cty.StringVal("10.77.0.1"), cty.NumberIntVal(7471)
		for k, v := range set {
			m[k] = v
		}
		return cty.ObjectVal(m)
	}
	for _, tc := range []struct {
		set  map[string]cty.Value
		want string // "" for none
	}{
		{nil, ""},
		{map[string]cty.Value{"qp_num": cty.UnknownVal(cty.Number), "pd": cty.UnknownVal(cty.String), "id": cty.UnknownVal(cty.String)}, ""},
		{map[string]cty.Value{"port": cty.UnknownVal(cty.Number)}, "port is still unknown"},
		{map[string]cty.Value{"qp": cty.ObjectVal(map[string]cty.Value{"max_send_wr": cty.UnknownVal(cty.Number)})}, "qp.max_send_wr is still unknown"},
	} {
		v := with(tc.set)
		if qp, ok := tc.set["qp"]; ok { // the block's other attributes, as the schema has them
			m := map[string]cty.Value{}
			for name, aty := range ty.AttributeType("qp").AttributeTypes() {
				m[name] = cty.NullVal(aty)
			}
			for k, x := range qp.AsValueMap() {
				m[k] = x
			}
			tc.set["qp"] = cty.ObjectVal(m)
			v = with(tc.set)
		}
		err := unknownsBesidesPD(inst, v)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v: %v", tc.set, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%v: %v, want %q", tc.set, err, tc.want)
		}
	}
}
