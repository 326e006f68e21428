package config

import (
	"testing"

	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
)

// Outputs using attributes known only after apply become known once the
// objects' values are; the others keep their values, and a block's shape
// (count, for_each, single) is kept.
func TestOutputsWithAppliedValues(t *testing.T) {
	cfg, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(`
listener "l" {
  address = "10.77.0.1"
  port    = 7471
}
endpoint "c" {
  count   = 2
  address = listener.l.address
  port    = listener.l.port
}
endpoint "m" {
  for_each = { a = 1 }
  address  = listener.l.address
  port     = listener.l.port
}
output "qps" {
  value = endpoint.c[*].qp_num
}
output "m" {
  value = endpoint.m["a"].local_port
}
output "dev" {
  value = listener.l.device
}
output "port" {
  value = listener.l.port
}
`)}, VarInputs{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if cfg.Outputs["qps"].Value.IsWhollyKnown() {
		t.Fatal("qps is known before apply")
	}
	applied := func(a addrs.Instance, attr string, v cty.Value) cty.Value {
		m := cfg.Instances[a].Value.AsValueMap()
		m[attr] = v
		return cty.ObjectVal(m)
	}
	c0, c1 := addrs.Instance{Resource: addrs.Resource{Kind: addrs.Endpoint, Name: "c"}, Key: addrs.IntKey(0)}, addrs.Instance{Resource: addrs.Resource{Kind: addrs.Endpoint, Name: "c"}, Key: addrs.IntKey(1)}
	ma := addrs.Instance{Resource: addrs.Resource{Kind: addrs.Endpoint, Name: "m"}, Key: addrs.StringKey("a")}
	values := map[addrs.Instance]cty.Value{
		c0: applied(c0, "qp_num", cty.NumberIntVal(17)),
		c1: applied(c1, "qp_num", cty.NumberIntVal(18)),
		ma: applied(ma, "local_port", cty.NumberIntVal(40000)),
	}
	out := cfg.OutputsWith(func(a addrs.Instance) (cty.Value, bool) { v, ok := values[a]; return v, ok })
	if want := cty.TupleVal([]cty.Value{cty.NumberIntVal(17), cty.NumberIntVal(18)}); !out["qps"].RawEquals(want) {
		t.Errorf("qps = %#v, want %#v", out["qps"], want)
	}
	if !out["m"].RawEquals(cty.NumberIntVal(40000)) {
		t.Errorf("m = %#v", out["m"])
	}
	if out["dev"].IsKnown() {
		t.Errorf("dev = %#v: the listener has no applied value", out["dev"])
	}
	if !out["port"].RawEquals(cty.NumberIntVal(7471)) {
		t.Errorf("port = %#v", out["port"])
	}
}
