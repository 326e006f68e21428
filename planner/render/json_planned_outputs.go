package render

import (
	"encoding/json"

	"github.com/rdmaform/rdmaform/planner"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// JSONOutput is one output in planned_values, as Terraform's: its type
// and value only when the value is wholly known (an output known only
// after apply has sensitive alone).
type JSONOutput struct {
	Sensitive bool            `json:"sensitive"`
	Type      json.RawMessage `json:"type,omitempty"`
	// Value is raw so that a known null is "value": null, as Terraform's.
	Value json.RawMessage `json:"value,omitempty"`
}

// plannedOutputs are the outputs the plan leaves (all but those it
// deletes), nil for none.
func plannedOutputs(p *planner.Plan) map[string]JSONOutput {
	var out map[string]JSONOutput
	for _, oc := range p.OutputChanges {
		if oc.Action == planner.Delete {
			continue
		}
		if out == nil {
			out = map[string]JSONOutput{}
		}
		o := JSONOutput{Sensitive: oc.Sensitive}
		if v, _ := oc.After.UnmarkDeep(); v.IsWhollyKnown() {
			ty, terr := ctyjson.MarshalType(v.Type())
			val, verr := json.Marshal(jsonValue(v))
			if terr == nil && verr == nil {
				o.Type, o.Value = ty, val
			}
		}
		out[oc.Name] = o
	}
	return out
}
