package render

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/rdmaform/rdmaform/planner"
	"github.com/zclconf/go-cty/cty"
)

// planned_values.outputs are the outputs the plan leaves, as Terraform's:
// with type and value when known, sensitive alone when known only after
// apply, and none for an output the plan removes.
func TestJSONPlannedOutputs(t *testing.T) {
	null := cty.NullVal(cty.DynamicPseudoType)
	p := &planner.Plan{OutputChanges: []planner.OutputChange{
		{Name: "ids", Action: planner.Create, Before: null, After: cty.TupleVal([]cty.Value{cty.StringVal("h-1"), cty.UnknownVal(cty.String)})},
		{Name: "port", Action: planner.NoOp, Before: cty.NumberIntVal(7471), After: cty.NumberIntVal(7471)},
		{Name: "token", Action: planner.Update, Before: cty.StringVal("a"), After: cty.StringVal("b"), Sensitive: true},
		{Name: "old", Action: planner.Delete, Before: cty.StringVal("gone"), After: null},
		{Name: "unset", Action: planner.Create, Before: null, After: cty.NullVal(cty.String)},
		{Name: "partly", Action: planner.Create, Before: null, After: cty.ObjectVal(map[string]cty.Value{"a": cty.NullVal(cty.String)})},
	}}
	var b bytes.Buffer
	if err := JSON(&b, p, nil); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		PlannedValues struct {
			Outputs json.RawMessage `json:"outputs"`
		} `json:"planned_values"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	want := `{"ids":{"sensitive":false},"partly":{"sensitive":false,"type":["object",{"a":"string"}],"value":{"a":null}},"port":{"sensitive":false,"type":"number","value":7471},"token":{"sensitive":true,"type":"string","value":"b"},"unset":{"sensitive":false,"type":"string","value":null}}`
	if string(doc.PlannedValues.Outputs) != want {
		t.Errorf("planned_values.outputs:\n got %s\nwant %s", doc.PlannedValues.Outputs, want)
	}
}
