package apply

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/state"
	"github.com/zclconf/go-cty/cty"
)

// applied is the object as recorded in the state once applied: the
// planned value with the computed attributes the fabric reported (set),
// and the protection domain resolved. What is still unknown is recorded
// as null, since the state holds only known values. It is kept as the
// planned value and the attributes set, not as a new cty object, whose
// construction (string normalisation, type building) cost more than the
// rest of recording a thousand endpoints.
type applied struct {
	planned cty.Value
	set     map[string]cty.Value
}

func appliedOf(planned cty.Value, facts state.Facts, pd string, addr addrs.Instance) applied {
	a := applied{planned: planned}
	if planned.IsNull() || !planned.IsKnown() || planned.IsMarked() || !planned.Type().IsObjectType() {
		return a
	}
	a.set = make(map[string]cty.Value, 8)
	set := func(name string, v cty.Value) {
		if planned.Type().HasAttribute(name) && !planned.GetAttr(name).IsKnown() {
			a.set[name] = v
		}
	}
	for name, v := range planner.FactAttributes(facts, addr) {
		set(name, v)
	}
	if pd != "" {
		set("pd", cty.StringVal(pd))
	}
	return a
}

// value is the applied object as one cty value.
func (a applied) value() cty.Value {
	if a.set == nil {
		return a.planned
	}
	m := a.planned.AsValueMap()
	for k, v := range a.set {
		m[k] = v
	}
	return cty.UnknownAsNull(cty.ObjectVal(m))
}

// attr is one attribute of the applied object (null when unknown).
func (a applied) attr(name string) cty.Value {
	if v, ok := a.set[name]; ok {
		return v
	}
	if a.planned.IsNull() || !a.planned.IsKnown() {
		return cty.NullVal(cty.DynamicPseudoType)
	}
	return cty.UnknownAsNull(a.planned.GetAttr(name))
}

// marshal encodes the applied object for the state, as
// ctyjson.Marshal(value()) would.
func (a applied) marshal() ([]byte, error) {
	if a.set == nil {
		return marshalValue(a.planned)
	}
	atys := a.planned.Type().AttributeTypes()
	names := make([]string, 0, len(atys))
	for k := range atys {
		names = append(names, k)
	}
	slices.Sort(names)
	b := make([]byte, 0, 512)
	b = append(b, '{')
	for i, k := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		v, ok := a.set[k]
		if !ok {
			v = a.planned.GetAttr(k)
		}
		if b, ok = appendKnown(b, v); !ok {
			return marshalValue(a.value())
		}
	}
	return append(b, '}'), nil
}

// specFor builds the fabric spec of a configured instance, resolving its
// protection domain: the planned value when known, otherwise the id of
// the protection domain it depends on, as just created (ids), or, when
// its block depends on several, the pd the instance evaluates to with
// the values objects have now (valueOf).
func specFor(cfg *config.Config, byResource map[addrs.Resource][]*config.Instance, inst *config.Instance, planned cty.Value, ids func(addrs.Instance) (string, bool), valueOf func(addrs.Instance) (cty.Value, bool)) (Spec, string, error) {
	if err := unknownsBesidesPD(inst, planned); err != nil {
		return Spec{}, "", err
	}
	pd := ""
	if !planned.IsNull() && planned.Type().HasAttribute("pd") {
		v := planned.GetAttr("pd")
		switch {
		case v.IsKnown() && !v.IsNull():
			pd = v.AsString()
		case !v.IsKnown():
			id, err := pdAfterApply(cfg, byResource, inst, ids, valueOf)
			if err != nil {
				return Spec{}, "", err
			}
			pd = id
		}
	}
	var s Spec
	switch {
	case inst.ProtectionDomain != nil:
		c := *inst.ProtectionDomain
		s.ProtectionDomain = &c
	case inst.Listener != nil:
		c := *inst.Listener
		c.PD = pd
		s.Listener = &c
	case inst.Endpoint != nil:
		c := *inst.Endpoint
		c.PD = pd
		s.Endpoint = &c
	}
	return s, pd, nil
}

// pdAfterApply is the id of inst's protection domain, made during this
// apply: the one its block depends on, without evaluating anything, or
// else what its pd evaluates to now (pd = var.fast ? protection_domain.a.id
// : protection_domain.b.id).
func pdAfterApply(cfg *config.Config, byResource map[addrs.Resource][]*config.Instance, inst *config.Instance, ids func(addrs.Instance) (string, bool), valueOf func(addrs.Instance) (cty.Value, bool)) (string, error) {
	if pdInst := planner.ProtectionDomainOf(cfg, byResource, inst); pdInst != nil {
		id, ok := ids(pdInst.Addr)
		if !ok {
			return "", fmt.Errorf("%s: its protection domain %s has no id", inst.Addr, pdInst.Addr)
		}
		return id, nil
	}
	again, diags := cfg.InstanceWith(inst.Addr, valueOf)
	if diags.HasErrors() {
		return "", fmt.Errorf("%s: evaluating pd with the protection domains made: %s", inst.Addr, diags.Error())
	}
	if !again.Known("pd") {
		return "", fmt.Errorf("%s: pd is still unknown once the protection domains it references are made", inst.Addr)
	}
	v := again.Value.GetAttr("pd")
	if v.IsNull() {
		return "", nil
	}
	return v.AsString(), nil
}

// resolveAfterApply evaluates the instance at addr again when its
// configuration uses values known only after apply, with the values the
// objects it references have now (valueOf), and returns that instance and
// the planned value with what was still unknown in it filled in.
// Otherwise it returns the configured instance and the planned value.
func resolveAfterApply(cfg *config.Config, addr addrs.Instance, planned cty.Value, valueOf func(addrs.Instance) (cty.Value, bool)) (*config.Instance, cty.Value, error) {
	if cfg == nil {
		return nil, planned, fmt.Errorf("%s: no configuration to build it from", addr)
	}
	inst := cfg.Instances[addr]
	if inst == nil {
		return nil, planned, fmt.Errorf("%s: not in the configuration", addr)
	}
	// pd alone is resolved from the ids of the protection domains made
	// (specFor), without evaluating anything again.
	if !cfg.UsesValuesAfterApply(inst.Resource) || !slices.ContainsFunc(inst.ValuesAfterApply(), func(name string) bool { return name != "pd" }) ||
		planned.IsNull() || !planned.IsKnown() || planned.IsMarked() || !planned.Type().IsObjectType() {
		return inst, planned, nil
	}
	again, diags := cfg.InstanceWith(addr, valueOf)
	if diags.HasErrors() {
		return nil, planned, fmt.Errorf("%s: evaluating it with the values made during this apply: %s", addr, diags.Error())
	}
	schema := config.Schema(addr.Kind)
	vals := planned.AsValueMap()
	for name, v := range vals {
		if a := schema.Attribute(name); (a == nil || !a.Computed) && !v.IsWhollyKnown() && again.Value.Type().HasAttribute(name) {
			vals[name] = again.Value.GetAttr(name)
		}
	}
	return again, cty.ObjectVal(vals), nil
}

// unknownsBesidesPD refuses an object whose configured attributes other
// than pd are still unknown once evaluated again with the values made
// during this apply (pd, a protection domain's id, is resolved apart).
func unknownsBesidesPD(inst *config.Instance, planned cty.Value) error {
	schema := config.Schema(inst.Addr.Kind)
	if !planned.IsNull() && planned.IsKnown() && !planned.IsMarked() && planned.Type().IsObjectType() {
		// The common case without a walk: every configured attribute and
		// block wholly known (the computed ones and pd are unknown until
		// made). Only those are read: each GetAttr normalises its name,
		// which for every attribute of a thousand endpoints was a tenth
		// of apply's own CPU. A value of another shape takes the walk.
		atys := planned.Type().AttributeTypes()
		fine := len(atys) == len(schema.Attributes)+len(schema.Blocks)
		for _, a := range schema.Attributes {
			if _, ok := atys[a.Name]; !fine || !ok {
				fine = false
				break
			}
			if !a.Computed && a.Name != "pd" {
				fine = planned.GetAttr(a.Name).IsWhollyKnown()
			}
		}
		for _, nb := range schema.Blocks {
			if _, ok := atys[nb.Name]; !fine || !ok {
				fine = false
				break
			}
			fine = planned.GetAttr(nb.Name).IsWhollyKnown()
		}
		if fine {
			return nil
		}
	}
	var bad string
	cty.Walk(planned, func(p cty.Path, v cty.Value) (bool, error) {
		if v.IsKnown() || len(p) == 0 || bad != "" {
			return bad == "", nil
		}
		name := p[0].(cty.GetAttrStep).Name
		if a := schema.Attribute(name); a != nil && (a.Computed || name == "pd") && len(p) == 1 {
			return false, nil
		}
		bad = pathString(p)
		return false, nil
	})
	if bad != "" {
		return fmt.Errorf("%s: %s is still unknown once the objects it references are made", inst.Addr, bad)
	}
	return nil
}

func pathString(p cty.Path) string {
	s := ""
	for _, step := range p {
		switch st := step.(type) {
		case cty.GetAttrStep:
			if s != "" {
				s += "."
			}
			s += st.Name
		case cty.IndexStep:
			s += "[" + strconv.Quote(st.Key.GoString()) + "]"
		}
	}
	return s
}
