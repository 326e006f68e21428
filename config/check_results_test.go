package config

import (
	"reflect"
	"testing"

	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
)

// Each condition's status, and a block's made of its instances' as
// Terraform aggregates them: error over fail over unknown over pass.
func TestCheckResults(t *testing.T) {
	l := NewLoader()
	l.SkipPreconditions = true // checked by CheckResults, as show does
	cfg, diags := l.LoadSources(map[string][]byte{"main.rdma.hcl": []byte(`
listener "l" {
  count   = 2
  address = "10.77.0.1"
  port    = 7471 + count.index

  lifecycle {
    precondition {
      condition     = count.index == 0
      error_message = "Only the first."
    }
    postcondition {
      condition     = self.port < 7472
      error_message = "Port ${self.port} is too high."
    }
  }
}

listener "bad" {
  address = "10.77.0.1"
  port    = 7480

  lifecycle {
    precondition {
      condition     = "maybe"
      error_message = "Not a bool."
    }
  }
}
`)}, VarInputs{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	made := func(a addrs.Instance) (cty.Value, bool) {
		inst := cfg.Instances[a]
		return inst.Value, inst != nil
	}
	got := cfg.CheckResults(made)
	want := []CheckResult{
		{Kind: CheckKindResource, Resource: addrs.Resource{Kind: addrs.Listener, Name: "bad"}, Status: CheckError, Instances: []CheckInstance{
			{Addr: mustInstance(t, "listener.bad"), Status: CheckError},
		}},
		{Kind: CheckKindResource, Resource: addrs.Resource{Kind: addrs.Listener, Name: "l"}, Status: CheckFail, Instances: []CheckInstance{
			{Addr: mustInstance(t, "listener.l[0]"), Status: CheckPass},
			{Addr: mustInstance(t, "listener.l[1]"), Status: CheckFail, Problems: []string{"Only the first.", "Port 7472 is too high."}},
		}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	// Not made yet: a postcondition is unknown.
	notMade := func(addrs.Instance) (cty.Value, bool) { return cty.NilVal, false }
	if r := cfg.CheckResults(notMade)[1]; r.Status != CheckFail || r.Instances[0].Status != CheckUnknown || !reflect.DeepEqual(r.Instances[1].Problems, []string{"Only the first."}) {
		t.Errorf("before apply: %+v", r)
	}
}
