package config

import (
	"testing"

	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
)

// An instance whose attributes use values known only after apply, through
// count.index, for_each's each.value or directly, is known once evaluated
// again with those values; its typed struct follows.
func TestInstanceWithAppliedValues(t *testing.T) {
	cfg, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(`
listener "l" {
  for_each = { a = 7471, b = 7472 }
  address  = "10.77.0.1"
  port     = each.value
}
endpoint "peer" {
  count   = 2
  address = "10.77.0.1"
  port    = 7471
}
endpoint "e" {
  for_each = listener.l
  address  = each.value.local_address
  port     = each.value.port
  connect {
    private_data = "peer=${endpoint.peer[0].qp_num}"
  }
}
endpoint "c" {
  count   = 2
  address = "10.77.0.1"
  port    = 7471
  connect {
    private_data = "qp=${endpoint.peer[count.index].qp_num}"
  }
}
`)}, VarInputs{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for name, want := range map[string]bool{"peer": false, "e": true, "c": true} {
		if got := cfg.UsesValuesAfterApply(cfg.Resources[addrs.Resource{Kind: addrs.Endpoint, Name: name}]); got != want {
			t.Errorf("endpoint.%s: UsesValuesAfterApply = %v, want %v", name, got, want)
		}
	}
	eb := addrs.Instance{Resource: addrs.Resource{Kind: addrs.Endpoint, Name: "e"}, Key: addrs.StringKey("b")}
	if got := cfg.Instances[eb].ValuesAfterApply(); len(got) != 2 {
		t.Fatalf("ValuesAfterApply = %v, want address and connect", got)
	}
	valueOf := func(a addrs.Instance) (cty.Value, bool) {
		inst := cfg.Instances[a]
		m := inst.Value.AsValueMap()
		switch a.Resource.Kind {
		case addrs.Listener:
			m["local_address"] = cty.StringVal("10.77.0.1")
		case addrs.Endpoint:
			m["qp_num"] = cty.NumberIntVal(int64(17 + a.Key.(addrs.IntKey)))
		}
		return cty.ObjectVal(m), true
	}
	inst, diags := cfg.InstanceWith(eb, valueOf)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if inst.Addr != eb || inst.Endpoint.Address != "10.77.0.1" || inst.Endpoint.Port != 7472 || string(inst.Endpoint.Connect.PrivateData) != "peer=17" || len(inst.ValuesAfterApply()) != 0 {
		t.Fatalf("endpoint.e[\"b\"] again: %+v %+v", inst.Endpoint, inst.Endpoint.Connect)
	}
	c1 := addrs.Instance{Resource: addrs.Resource{Kind: addrs.Endpoint, Name: "c"}, Key: addrs.IntKey(1)}
	if inst, diags = cfg.InstanceWith(c1, valueOf); diags.HasErrors() || string(inst.Endpoint.Connect.PrivateData) != "qp=18" {
		t.Fatalf("endpoint.c[1] again: %q %v", inst.Endpoint.Connect.PrivateData, diags)
	}
	if _, diags := cfg.InstanceWith(addrs.Instance{Resource: addrs.Resource{Kind: addrs.Endpoint, Name: "nope"}}, valueOf); !diags.HasErrors() {
		t.Fatal("an address not in the configuration evaluates")
	}
}

// Through locals too: a local reaching another object's attribute known
// only after apply is evaluated again with the instance, and for outputs.
func TestInstanceWithThroughLocals(t *testing.T) {
	cfg, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(`
locals {
  peer   = endpoint.peer.qp_num
  msg    = "qp=${local.peer}"
  static = "x"
}
endpoint "peer" {
  address = "10.77.0.1"
  port    = 7471
}
endpoint "e" {
  address = "10.77.0.1"
  port    = 7471
  connect {
    private_data = local.msg
  }
}
endpoint "s" {
  address = "10.77.0.1"
  port    = 7471
  connect {
    private_data = local.static
  }
}
output "msg" {
  value = local.msg
}
`)}, VarInputs{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	e := addrs.Instance{Resource: addrs.Resource{Kind: addrs.Endpoint, Name: "e"}}
	if !cfg.UsesValuesAfterApply(cfg.Resources[e.Resource]) || cfg.UsesValuesAfterApply(cfg.Resources[addrs.Resource{Kind: addrs.Endpoint, Name: "s"}]) {
		t.Fatal("UsesValuesAfterApply does not follow locals")
	}
	valueOf := func(a addrs.Instance) (cty.Value, bool) {
		m := cfg.Instances[a].Value.AsValueMap()
		m["qp_num"] = cty.NumberIntVal(42)
		return cty.ObjectVal(m), true
	}
	inst, diags := cfg.InstanceWith(e, valueOf)
	if diags.HasErrors() || string(inst.Endpoint.Connect.PrivateData) != "qp=42" {
		t.Fatalf("endpoint.e again: %q %v", inst.Endpoint.Connect.PrivateData, diags)
	}
	if got := cfg.OutputsWith(valueOf)["msg"]; !got.RawEquals(cty.StringVal("qp=42")) {
		t.Fatalf("output through locals: %#v", got)
	}
}
