package planner

import (
	"bytes"
	"encoding/json"
	"sort"

	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/state"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// outputChanges compares the configuration's outputs with the state's.
// Outputs are evaluated again with the objects' planned values, so that
// one using an attribute known only after apply is known when its object
// keeps the state's values. One still unknown is an update to a value
// known after apply when the plan changes any object, and otherwise (it
// reaches such an attribute through a local, which is not evaluated
// again) taken as unchanged when the state has a value for it.
func outputChanges(cfg *config.Config, st *state.State, p *Plan) []OutputChange {
	values := cfg.OutputsWith(func(a addrs.Instance) (cty.Value, bool) {
		if c := p.Change(a); c != nil && c.Action != Delete {
			return c.AfterValue(), true
		}
		return cty.NilVal, false
	})
	objectsChange := false
	for _, c := range p.Changes {
		objectsChange = objectsChange || c.Action != NoOp
	}
	return compareOutputs(cfg, st, values, objectsChange, false)
}

// refreshedOutputs are the outputs of a refresh-only plan: evaluated with
// the refreshed objects, so that one using an object the agent no longer
// holds, which cannot be computed any more, is removed from the state, as
// Terraform's refresh-only apply does.
func refreshedOutputs(cfg *config.Config, st *state.State, priors map[string]*prior) []OutputChange {
	values := cfg.OutputsWith(func(a addrs.Instance) (cty.Value, bool) {
		if pr, ok := priors[a.String()]; ok {
			return pr.value(), true
		}
		// Not held: not even its configured attributes stand for it.
		return cty.DynamicVal, true
	})
	return compareOutputs(cfg, st, values, false, true)
}

// compareOutputs compares the outputs' values with the state's. One not
// wholly known is an update when objectsChange; with unknownDeletes it is
// removed; otherwise it is left as the state has it. An output the state
// has as configured is a no-op, as in Terraform's plan JSON.
func compareOutputs(cfg *config.Config, st *state.State, values map[string]cty.Value, objectsChange, unknownDeletes bool) []OutputChange {
	var out []OutputChange
	names := make([]string, 0, len(cfg.Outputs))
	for n := range cfg.Outputs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		o, v := cfg.Outputs[n], values[n]
		var so *state.Output
		if st != nil {
			so = st.Outputs[n]
		}
		// As in Terraform, a null output is no output: not shown as
		// added, and removed from the state when it becomes null.
		isNull := v.IsKnown() && v.IsNull()
		if so == nil {
			if !isNull {
				out = append(out, OutputChange{Name: n, Action: Create, Before: cty.NullVal(cty.DynamicPseudoType), After: v, Sensitive: o.Sensitive})
			}
			continue
		}
		if isNull {
			out = append(out, OutputChange{Name: n, Action: Delete, Before: decodeOutput(so), After: cty.NullVal(cty.DynamicPseudoType), Sensitive: so.Sensitive})
			continue
		}
		if !v.IsWhollyKnown() {
			if unknownDeletes {
				out = append(out, OutputChange{Name: n, Action: Delete, Before: decodeOutput(so), After: cty.NullVal(cty.DynamicPseudoType), Sensitive: so.Sensitive})
				continue
			}
			if objectsChange {
				out = append(out, OutputChange{Name: n, Action: Update, Before: decodeOutput(so), After: v, Sensitive: o.Sensitive || so.Sensitive})
			} else {
				before := decodeOutput(so)
				out = append(out, OutputChange{Name: n, Action: NoOp, Before: before, After: before, Sensitive: so.Sensitive})
			}
			continue
		}
		plain, _ := v.UnmarkDeep()
		if b, err := ctyjson.Marshal(plain, plain.Type()); err == nil && sameJSON(b, so.Value) && so.Sensitive == o.Sensitive {
			out = append(out, OutputChange{Name: n, Action: NoOp, Before: decodeOutput(so), After: v, Sensitive: o.Sensitive})
			continue
		}
		out = append(out, OutputChange{Name: n, Action: Update, Before: decodeOutput(so), After: v, Sensitive: o.Sensitive || so.Sensitive})
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

// decodeOutput returns a state output's value (typed as its JSON implies
// where the state records no type), or an unknown value when it cannot be
// decoded.
func decodeOutput(so *state.Output) cty.Value {
	v, err := so.CtyValue()
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

// targetedOutputs keeps, of a targeted plan's output changes, those whose
// value the plan knows: outputs of the blocks the plan covers whole (or of
// none). An output that reads an object the targets leave out would be
// computed from its configuration, not from what exists, so it stays as
// the state records it, as the objects do.
func targetedOutputs(cfg *config.Config, st *state.State, p *Plan) []OutputChange {
	// A block is covered whole when every instance it has, configured or
	// in the state, has its change in the plan.
	left := map[addrs.Resource]bool{}
	for a := range cfg.Instances {
		if p.Change(a) == nil {
			left[a.Resource] = true
		}
	}
	if st != nil {
		for _, a := range st.Addresses() {
			if p.Change(a) == nil {
				left[a.Resource] = true
			}
		}
	}
	whole := func(r addrs.Resource) bool { return !left[r] }
	var out []OutputChange
	for _, oc := range p.OutputChanges {
		o := cfg.Outputs[oc.Name]
		if o != nil && !all(o.DependsOn, whole) {
			continue
		}
		out = append(out, oc)
	}
	return out
}

func all[T any](xs []T, f func(T) bool) bool {
	for _, x := range xs {
		if !f(x) {
			return false
		}
	}
	return true
}
