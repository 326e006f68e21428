package planner

import (
	"bytes"
	"encoding/json"
	"sort"

	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/state"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// outputChanges compares the configuration's outputs with the state's.
// An output that is unknown now (computed from values known only after
// apply) is taken as unchanged when the state has a value for it, by the
// same reasoning as for object attributes.
func outputChanges(cfg *config.Config, st *state.State) []OutputChange {
	var out []OutputChange
	names := make([]string, 0, len(cfg.Outputs))
	for n := range cfg.Outputs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		o := cfg.Outputs[n]
		var so *state.Output
		if st != nil {
			so = st.Outputs[n]
		}
		if so == nil {
			out = append(out, OutputChange{Name: n, Action: Create, Before: cty.NullVal(cty.DynamicPseudoType), After: o.Value, Sensitive: o.Sensitive})
			continue
		}
		if !o.Value.IsWhollyKnown() {
			continue
		}
		plain, _ := o.Value.UnmarkDeep()
		if b, err := ctyjson.Marshal(plain, plain.Type()); err == nil && sameJSON(b, so.Value) && so.Sensitive == o.Sensitive {
			continue
		}
		out = append(out, OutputChange{Name: n, Action: Update, Before: decodeOutput(so), After: o.Value, Sensitive: o.Sensitive || so.Sensitive})
	}
	if st != nil {
		for _, n := range st.OutputNames() {
			if cfg.Outputs[n] == nil {
				so := st.Outputs[n]
				out = append(out, OutputChange{Name: n, Action: Delete, Before: decodeOutput(so), After: cty.NullVal(cty.DynamicPseudoType), Sensitive: so.Sensitive})
			}
		}
	}
	return out
}

// decodeOutput returns a state output's value, or an unknown value when
// the state does not record its type.
func decodeOutput(so *state.Output) cty.Value {
	if len(so.Type) == 0 {
		return cty.DynamicVal
	}
	ty, err := ctyjson.UnmarshalType(so.Type)
	if err != nil {
		return cty.DynamicVal
	}
	v, err := ctyjson.Unmarshal(so.Value, ty)
	if err != nil {
		return cty.DynamicVal
	}
	return v
}

// sameJSON compares two JSON texts ignoring layout: the state file is
// indented, and its outputs' values with it.
func sameJSON(a, b []byte) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return false
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}
