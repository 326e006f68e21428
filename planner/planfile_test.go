package planner

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/state"
	"github.com/zclconf/go-cty/cty"
)

func TestPlanFileRoundTrip(t *testing.T) {
	cfg := load(t, loopback)
	st := applied(t, mustPlan(t, cfg, nil, Options{}))
	st.Serial = 7
	src := strings.Replace(loopback, "port    = 7471", "port    = 7472", 1)
	st.Objects["endpoint.client[1]"].Facts.Deposed = &state.DeposedObject{AgentHandle: "endpoint.client[1]", CreateToken: "0123456789"}
	p := mustPlan(t, load(t, src), st, Options{Targets: []addrs.Instance{mustAddr(t, "endpoint.client")}})
	var b bytes.Buffer
	in := Inputs{Vars: []VarInput{{Value: "a=1"}, {File: true, Value: "x.rdmavars"}}, ConfigDigest: "sha256:abc"}
	if err := WritePlanFile(&b, &SavedPlan{Plan: p, Inputs: in, RdmaformVersion: "0.1.0"}); err != nil {
		t.Fatal(err)
	}
	if !IsPlanFile(b.Bytes()) || IsPlanFile([]byte(`{"version":4}`)) {
		t.Fatal("IsPlanFile")
	}
	sp, err := ReadPlanFile(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	q := sp.Plan
	if q.Prior != p.Prior || q.Prior.Serial != 7 || sp.Inputs.ConfigDigest != "sha256:abc" || len(sp.Inputs.Vars) != 2 || !sp.Inputs.Vars[1].File {
		t.Fatalf("metadata lost: %+v %+v", q.Prior, sp.Inputs)
	}
	if actions(q) != actions(p) || len(q.Targets) != 1 || q.Targets[0].String() != "endpoint.client" {
		t.Fatalf("changes differ:\n%s\nvs\n%s", actions(q), actions(p))
	}
	if len(p.Deposed) != 1 || len(q.Deposed) != 1 || q.Deposed[0] != p.Deposed[0] {
		t.Fatalf("deposed objects: %+v, after the round trip %+v", p.Deposed, q.Deposed)
	}
	for i, c := range p.Changes {
		d := q.Changes[i]
		if !d.AfterValue().RawEquals(c.AfterValue()) || !d.BeforeValue().RawEquals(c.BeforeValue()) {
			t.Fatalf("%s: values differ after the round trip", c.Addr)
		}
		if len(d.RequiredReplace) != len(c.RequiredReplace) || len(d.Dependencies) != len(c.Dependencies) {
			t.Fatalf("%s: paths or dependencies lost", c.Addr)
		}
	}
	if _, err := ReadPlanFile([]byte(`{"format":"rdmaform-plan","format_version":99}`)); err == nil || !strings.Contains(err.Error(), "format 99") {
		t.Fatalf("future format: %v", err)
	}
}

// Drift survives a saved plan: a deleted object as deleted, a changed one
// with its refreshed value and facts, which apply records.
func TestPlanFileKeepsDrift(t *testing.T) {
	cfg := load(t, loopback)
	p := mustPlan(t, cfg, nil, Options{})
	after := p.Changes[0].AfterValue()
	p.Drift = []Drift{
		{Addr: mustAddr(t, "endpoint.client[0]"), Before: after},
		{Addr: mustAddr(t, "endpoint.client[1]"), Before: after, After: after, Facts: state.Facts{QPNum: 19, LocalPort: 40001, Reconnects: 2}, Status: "established"},
	}
	var b bytes.Buffer
	if err := WritePlanFile(&b, &SavedPlan{Plan: p, RdmaformVersion: "0.1.0"}); err != nil {
		t.Fatal(err)
	}
	sp, err := ReadPlanFile(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	q := sp.Plan.Drift
	if len(q) != 2 || !q[0].Deleted() || q[1].Deleted() || q[1].Facts.QPNum != 19 || q[1].Facts.Reconnects != 2 || !q[1].After.RawEquals(after) {
		t.Fatalf("drift after the round trip: %+v", q)
	}
}

// A value partly unknown keeps its known parts through a saved plan: an
// unknown element of a list stays one element, as plan showed it.
func TestSavedValuesKeepTheirKnownElements(t *testing.T) {
	v := cty.ObjectVal(map[string]cty.Value{
		"list": cty.TupleVal([]cty.Value{cty.NumberIntVal(23), cty.UnknownVal(cty.Number)}),
		"map":  cty.MapVal(map[string]cty.Value{"a b": cty.UnknownVal(cty.String), "c": cty.StringVal("d")}),
		"attr": cty.UnknownVal(cty.String),
	})
	got, err := decodeValue(encodeValue(v))
	if err != nil {
		t.Fatal(err)
	}
	if !got.RawEquals(v) {
		t.Errorf("after the round trip: %#v, want %#v", got, v)
	}
}
