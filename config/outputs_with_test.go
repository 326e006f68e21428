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

// An output's depends_on, as Terraform's, names blocks the output then
// depends on; anything else is refused.
func TestOutputDependsOn(t *testing.T) {
	cfg := mustLoad(t, map[string]string{"main.rdma.hcl": `
listener "l" {
  address = "10.77.0.1"
  port    = 7471
}
output "o" {
  value      = "x"
  depends_on = [listener.l]
}
`})
	if d := cfg.Outputs["o"].DependsOn; len(d) != 1 || d[0].String() != "listener.l" {
		t.Errorf("output o depends on %v, want listener.l", d)
	}
	for _, bad := range []string{"[listener.nope]", "[var.x]", "[listener.l.port]"} {
		_, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte("variable \"x\" {\n  default = 1\n}\nlistener \"l\" {\n  address = \"10.77.0.1\"\n  port    = 7471\n}\noutput \"o\" {\n  value      = 1\n  depends_on = " + bad + "\n}\n")}, VarInputs{})
		if !diags.HasErrors() || diags[0].Subject == nil || diags[0].Subject.Start.Line != 10 {
			t.Errorf("depends_on = %s: %v", bad, diags)
		}
	}
}
