package planner

import (
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
)

// withPriorPD gives each instance whose pd is unknown (a protection
// domain's id, known once the protection domain is made) the id the state
// records of the protection domain it refers to, as Terraform evaluates a
// reference to an object that exists with its state value. The caller
// knows that no protection domain the block depends on is made or
// replaced by the plan. Without it, the prior pd stood in for the
// unknown one, so moving an object to another protection domain planned
// nothing (pd forces replacement), and a new object showed the id of one
// that exists as (known after apply).
//
// The block's one protection domain gives the id without evaluating
// anything; a block that depends on several (a conditional, a map of
// them in locals) has each instance evaluated again with the state's
// values.
func withPriorPD(cfg *config.Config, insts []*config.Instance, priors map[string]*prior, byResource map[addrs.Resource][]*config.Instance) {
	stateValue := func(a addrs.Instance) (cty.Value, bool) {
		if pr := priors[a.String()]; pr != nil && !pr.null() {
			return pr.value(), true
		}
		return cty.NilVal, false
	}
	// The block's one protection domain, looked up once: DependsOn is
	// the block's.
	var single *config.Instance
	singleDone := false
	for i, inst := range insts {
		if !hasUnknownPD(inst) {
			continue
		}
		if !singleDone {
			single, singleDone = ProtectionDomainOf(cfg, byResource, inst), true
		}
		id := cty.NilVal
		if single != nil {
			if v, ok := stateValue(single.Addr); ok && v.Type().HasAttribute("id") {
				id = v.GetAttr("id")
			}
		} else if again, diags := cfg.InstanceWith(inst.Addr, stateValue); !diags.HasErrors() && again.Known("pd") {
			id = again.Value.GetAttr("pd")
		}
		if id == cty.NilVal || !id.IsKnown() || id.IsNull() || id.Type() != cty.String {
			continue
		}
		// An unknown pd takes the prior's (reconcile): when that is the
		// id, the instance need not be made again (10,000 endpoints
		// planned without a change took twice as long).
		if pr := priors[inst.Addr.String()]; pr != nil && !pr.null() {
			if was, ok := pr.fields.named("pd"); ok && was.IsKnown() && !was.IsNull() && was.Type() == cty.String && was.AsString() == id.AsString() {
				continue
			}
		}
		insts[i] = withPD(inst, id)
	}
}

func hasUnknownPD(inst *config.Instance) bool {
	v := inst.Value
	return !v.IsNull() && v.IsKnown() && v.Type().IsObjectType() && v.Type().HasAttribute("pd") && !v.GetAttr("pd").IsKnown()
}

// withPD is a copy of inst with its pd known.
func withPD(inst *config.Instance, id cty.Value) *config.Instance {
	c := *inst
	m := inst.Value.AsValueMap()
	m["pd"] = id
	c.Value = cty.ObjectVal(m)
	switch {
	case inst.Listener != nil:
		l := *inst.Listener
		l.PD = id.AsString()
		c.Listener = &l
	case inst.Endpoint != nil:
		e := *inst.Endpoint
		e.PD = id.AsString()
		c.Endpoint = &e
	}
	return &c
}
