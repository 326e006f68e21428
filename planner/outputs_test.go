package planner

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/state"
)

// A targeted plan changes only the outputs of the blocks it covers whole:
// the others would be computed from the configuration of objects the
// targets leave as they are.
func TestTargetedPlanLeavesOtherOutputs(t *testing.T) {
	src := `
variable "port" {
  default = 7480
}
listener "l" {
  address = "10.77.0.1"
  port    = var.port
}
endpoint "e" {
  count   = 2
  address = listener.l.address
  port    = var.port
}
output "endpoints" {
  value = [for e in endpoint.e : "${e.address}:${e.port}"]
}
output "listener_port" {
  value = listener.l.port
}
output "constant" {
  value = "v1"
}
`
	st := applied(t, mustPlan(t, load(t, src), nil, Options{}))
	st.SetOutput("endpoints", mustOutput(t, `["10.77.0.1:7480","10.77.0.1:7480"]`))
	st.SetOutput("listener_port", mustOutput(t, `7480`))
	st.SetOutput("constant", mustOutput(t, `"v1"`))
	changed := strings.NewReplacer("default = 7480", "default = 7482", `"v1"`, `"v2"`).Replace(src)
	names := func(p *Plan) string {
		var out []string
		for _, oc := range p.OutputChanges {
			out = append(out, oc.Name)
		}
		return strings.Join(out, " ")
	}
	// A typo targets nothing: only the constant output may change.
	if p := mustPlan(t, load(t, changed), st, Options{Targets: []addrs.Instance{mustAddr(t, "endpoint.typo")}}); names(p) != "constant" {
		t.Errorf("targeting nothing plans outputs %q, want only constant", names(p))
	}
	// The listener alone: its output, not the endpoints'.
	if p := mustPlan(t, load(t, changed), st, Options{Targets: []addrs.Instance{mustAddr(t, "listener.l")}}); names(p) != "constant listener_port" {
		t.Errorf("targeting listener.l plans outputs %q, want constant and listener_port", names(p))
	}
	// One endpoint of two: the endpoints' output stays.
	if p := mustPlan(t, load(t, changed), st, Options{Targets: []addrs.Instance{mustAddr(t, "endpoint.e[0]")}}); strings.Contains(names(p), "endpoints") {
		t.Errorf("targeting endpoint.e[0] plans outputs %q", names(p))
	}
	// Both endpoints (and so the listener): every output.
	if p := mustPlan(t, load(t, changed), st, Options{Targets: []addrs.Instance{mustAddr(t, "endpoint.e")}}); names(p) != "constant endpoints listener_port" {
		t.Errorf("targeting endpoint.e plans outputs %q, want all three", names(p))
	}
}

func mustOutput(t *testing.T, raw string) *state.Output {
	t.Helper()
	return &state.Output{Value: json.RawMessage(raw)}
}

// An instance the plan deletes does not stand for one it leaves out.
func TestTargetedOutputsCountInstancesNotChanges(t *testing.T) {
	src := `
variable "n" {
  default = 3
}
endpoint "e" {
  count   = var.n
  address = "10.77.0.1"
  port    = 7480
}
output "endpoints" {
  value = [for e in endpoint.e : e.port]
}
`
	st := applied(t, mustPlan(t, load(t, src), nil, Options{}))
	st.SetOutput("endpoints", mustOutput(t, `[7480,7480,7480]`))
	changed := strings.NewReplacer("default = 3", "default = 2", "port    = 7480", "port    = 7482").Replace(src)
	p := mustPlan(t, load(t, changed), st, Options{Targets: []addrs.Instance{mustAddr(t, "endpoint.e[0]"), mustAddr(t, "endpoint.e[2]")}})
	for _, oc := range p.OutputChanges {
		if oc.Name == "endpoints" {
			t.Errorf("endpoint.e[1] is left out, yet the output is planned: %#v", oc.After)
		}
	}
}

// As in Terraform, a null output is no output: a new one is not planned,
// and one that becomes null leaves the state.
func TestNullOutputsAreNotKept(t *testing.T) {
	src := `
listener "l" {
  count   = 0
  address = "10.77.0.1"
  port    = 7480
}
output "one" {
  value = one(listener.l[*].port)
}
output "kept" {
  value = "v"
}
`
	p := mustPlan(t, load(t, src), nil, Options{})
	if len(p.OutputChanges) != 1 || p.OutputChanges[0].Name != "kept" {
		t.Errorf("outputs planned from nothing: %+v, want only kept", p.OutputChanges)
	}
	st := applied(t, p)
	st.SetOutput("one", mustOutput(t, `7480`))
	st.SetOutput("kept", mustOutput(t, `"v"`))
	p = mustPlan(t, load(t, src), st, Options{})
	if ocs := p.ChangedOutputs(); len(ocs) != 1 || ocs[0].Name != "one" || ocs[0].Action != Delete {
		t.Errorf("an output become null: %+v, want one deleted", p.OutputChanges)
	}
}

// A removed output the state records no type for is removed from its
// value (the type its JSON implies), not from an unknown one.
func TestRemovedUntypedOutputHasItsValue(t *testing.T) {
	src := `
listener "l" {
  address = "10.77.0.1"
  port    = 7480
}
`
	st := applied(t, mustPlan(t, load(t, src), nil, Options{}))
	st.SetOutput("old", mustOutput(t, `"gone"`))
	st.SetOutput("list", mustOutput(t, `[1,"a"]`))
	p := mustPlan(t, load(t, src), st, Options{})
	got := map[string]string{}
	for _, oc := range p.OutputChanges {
		if oc.Action == Delete && oc.Before.IsWhollyKnown() {
			got[oc.Name] = oc.Before.GoString()
		}
	}
	if got["old"] != `cty.StringVal("gone")` || got["list"] != `cty.TupleVal([]cty.Value{cty.NumberIntVal(1), cty.StringVal("a")})` {
		t.Errorf("removed untyped outputs' values: %v", got)
	}
}
