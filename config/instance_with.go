package config

import (
	"fmt"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
)

// InstanceWith evaluates the instance at addr again, the objects it
// references (in its body or its for_each) taking their values from
// valueOf; an object valueOf has no value for keeps its configured one.
// The configuration is evaluated before anything is applied, so an
// attribute computed from another object's attribute known only after
// apply (qp_num, device, local_port, ...) is unknown in Instances; apply
// evaluates the instance again once the objects it references are made,
// and the locals it uses that reach objects with it.
func (c *Config) InstanceWith(addr addrs.Instance, valueOf func(addrs.Instance) (cty.Value, bool)) (*Instance, hcl.Diagnostics) {
	old := c.Instances[addr]
	if old == nil || old.Resource == nil || old.Resource.body == nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Not in the configuration",
			Detail: fmt.Sprintf("%s is not an instance of the configuration.", addr)}}
	}
	r := old.Resource
	ctx, diags := c.instanceContext(addr, r, valueOf)
	_, inst, d := evalInstance(r, ctx, false)
	// The agent is chosen when loading: its index uses no object.
	inst.Addr, inst.Resource, inst.Agent = addr, r, old.Agent
	return inst, append(diags, d...)
}

// CheckConditions checks addr's preconditions (self is cty.NilVal) or
// postconditions (self is the object apply made or updated, its
// attributes known), with the values valueOf has of objects made by
// apply, as InstanceWith evaluates. A false condition is an error with its
// error_message.
func (c *Config) CheckConditions(addr addrs.Instance, self cty.Value, valueOf func(addrs.Instance) (cty.Value, bool)) hcl.Diagnostics {
	deferred, diags := c.checkInstanceConditions(addr, self, valueOf)
	if deferred && !diags.HasErrors() {
		summary := "Resource precondition failed"
		if self != cty.NilVal {
			summary = "Resource postcondition failed"
		}
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary,
			Detail: "The condition is still unknown once the objects it uses are made."})
	}
	return diags
}

// HasPostconditions reports whether the block of addr has postconditions.
func (c *Config) HasPostconditions(addr addrs.Instance) bool {
	inst := c.Instances[addr]
	return inst != nil && inst.Resource != nil && len(inst.Resource.Lifecycle.Postconditions) > 0
}

// CheckKnownPostconditions checks addr's postconditions against self as
// the plan leaves it, as Terraform does while planning: a condition that
// is not known yet (it uses a value known only after apply) is left for
// apply.
func (c *Config) CheckKnownPostconditions(addr addrs.Instance, self cty.Value, valueOf func(addrs.Instance) (cty.Value, bool)) hcl.Diagnostics {
	_, diags := c.checkInstanceConditions(addr, self, valueOf)
	return diags
}

func (c *Config) checkInstanceConditions(addr addrs.Instance, self cty.Value, valueOf func(addrs.Instance) (cty.Value, bool)) (bool, hcl.Diagnostics) {
	inst := c.Instances[addr]
	if inst == nil || inst.Resource == nil || inst.Resource.body == nil {
		return false, nil
	}
	r := inst.Resource
	conds, summary := r.Lifecycle.Preconditions, "Resource precondition failed"
	if self != cty.NilVal {
		conds, summary = r.Lifecycle.Postconditions, "Resource postcondition failed"
	}
	if len(conds) == 0 {
		return false, nil
	}
	ctx, diags := c.instanceContext(addr, r, valueOf)
	if self != cty.NilVal {
		ctx = ctx.NewChild()
		ctx.Variables = map[string]cty.Value{"self": self}
	}
	deferred, d := checkConditions(conds, ctx, summary)
	return deferred, append(diags, d...)
}

// instanceContext is the evaluation context of addr, an instance of r,
// with valueOf's values of objects made by apply.
func (c *Config) instanceContext(addr addrs.Instance, r *Resource, valueOf func(addrs.Instance) (cty.Value, bool)) (*hcl.EvalContext, hcl.Diagnostics) {
	condRefs, _, _ := r.conditionTraversals()
	trs := r.body.allTraversals() // shared: append to a copy
	refs := append(trs[:len(trs):len(trs)], condRefs...)
	if r.ForEach != nil {
		refs = append(refs[:len(refs):len(refs)], r.ForEach.Variables()...)
	}
	used := map[addrs.Resource]bool{}
	for _, t := range refs {
		if rr, ok := c.referencedResource(t); ok {
			used[rr] = true
		}
	}
	c.addLocalResources(refs, used)
	byResource := c.instancesByResource()
	res := make(map[addrs.Resource]cty.Value, len(used))
	for rr := range used {
		res[rr] = c.resourceValueWith(c.Resources[rr], byResource[rr], valueOf)
	}
	ctx := fullContext(c.builtins(), c.Variables, c.localsWith(c.Variables, res), res, c.functions())
	var diags hcl.Diagnostics
	switch k := addr.Key.(type) {
	case addrs.IntKey:
		ctx = ctx.NewChild()
		ctx.Variables = map[string]cty.Value{"count": cty.ObjectVal(map[string]cty.Value{"index": cty.NumberIntVal(int64(k))})}
	case addrs.StringKey:
		each, d := eachOf(r, ctx, string(k))
		diags = append(diags, d...)
		ctx = ctx.NewChild()
		ctx.Variables = map[string]cty.Value{"each": each}
	}
	return ctx, diags
}

// eachOf is the each object of a for_each instance: its key and its
// element of the for_each value, evaluated in ctx.
func eachOf(r *Resource, ctx *hcl.EvalContext, key string) (cty.Value, hcl.Diagnostics) {
	k := cty.StringVal(key)
	v, diags := r.ForEach.Value(ctx)
	v, _ = v.UnmarkDeep()
	value := cty.DynamicVal
	switch {
	case diags.HasErrors() || !v.IsKnown() || v.IsNull():
	case v.Type().IsSetType():
		value = k
	case v.Type().IsObjectType():
		if v.Type().HasAttribute(key) {
			value = v.GetAttr(key)
		}
	case v.Type().IsMapType():
		if v.HasIndex(k).True() {
			value = v.Index(k)
		}
	}
	return cty.ObjectVal(map[string]cty.Value{"key": k, "value": value}), diags
}

// ValuesAfterApply names the configured (not computed) attributes and
// blocks of the instance that are not wholly known: computed from another
// object's attribute known only after apply. InstanceWith evaluates such
// an instance again once those values are known.
func (inst *Instance) ValuesAfterApply() []string {
	v := inst.Value
	if v.IsNull() || !v.IsKnown() || !v.Type().IsObjectType() {
		return nil
	}
	var names []string
	schema := Schema(inst.Addr.Kind)
	for it := v.ElementIterator(); it.Next(); {
		k, av := it.Element()
		if a := schema.Attribute(k.AsString()); (a == nil || !a.Computed) && !av.IsWhollyKnown() {
			names = append(names, k.AsString())
		}
	}
	return names
}

// instancesByResource is the instances of each block in address order,
// indexed once: apply evaluates instances again concurrently.
func (c *Config) instancesByResource() map[addrs.Resource][]*Instance {
	c.byResourceOnce.Do(func() {
		c.byResource = make(map[addrs.Resource][]*Instance, len(c.Resources))
		for _, inst := range c.Instances {
			c.byResource[inst.Addr.Resource] = append(c.byResource[inst.Addr.Resource], inst)
		}
		for _, insts := range c.byResource {
			sort.Slice(insts, func(i, j int) bool { return insts[i].Addr.Less(insts[j].Addr) })
		}
	})
	return c.byResource
}

// UsesValuesAfterApply reports whether the block's attributes, pd aside,
// may use values known only after apply: they reference another block's
// computed attribute (qp_num, device, local_port, ...), a whole object or
// list of them (whose computed attributes come along), or such a value of
// each.value, directly or through locals. Only then can an instance's
// ValuesAfterApply name other attributes than pd; the planner and apply
// ask this first, once per block, rather than look at every instance.
func (c *Config) UsesValuesAfterApply(r *Resource) bool {
	r.afterApplyOnce.Do(func() {
		computedLocal := c.localDependentsOf().computed
		if r.body == nil {
			return
		}
		var forEachKind addrs.Kind
		if r.ForEach != nil {
			for _, t := range r.ForEach.Variables() {
				if k, ok := resourceKind(t); ok {
					forEachKind = k
				}
			}
		}
		for i, a := range r.body.schema.Attributes {
			if a.Name == "pd" || r.body.attrs[i].attr == nil {
				continue
			}
			if usesComputed(r.body.attrs[i].attr.Expr.Variables(), forEachKind) || usesComputedLocal(r.body.attrs[i].attr.Expr.Variables(), computedLocal) {
				r.afterApply = true
				return
			}
		}
		for _, b := range r.body.blocks {
			if b != nil && (usesComputed(b.allTraversals(), forEachKind) || usesComputedLocal(b.allTraversals(), computedLocal)) {
				r.afterApply = true
				return
			}
		}
	})
	return r.afterApply
}

// usesComputedLocal reports whether a traversal names a local that
// reaches values known only after apply.
func usesComputedLocal(trs []hcl.Traversal, computed map[string]bool) bool {
	for _, t := range trs {
		if name, ok := localName(t); ok && computed[name] {
			return true
		}
	}
	return false
}

// resourceKind is the kind of block a traversal such as listener.l.port
// starts with.
func resourceKind(t hcl.Traversal) (addrs.Kind, bool) {
	for _, k := range addrs.Kinds {
		if t.RootName() == string(k) && len(t) >= 2 {
			return k, true
		}
	}
	return "", false
}

// usesComputed reports whether a traversal reaches a block's computed
// attribute, or a whole object that carries them: listener.l.local_port,
// endpoint.c (a list), each.value when for_each ranges over blocks of
// kind forEachKind.
func usesComputed(trs []hcl.Traversal, forEachKind addrs.Kind) bool {
	for _, t := range trs {
		var kind addrs.Kind
		var rest hcl.Traversal
		if k, ok := resourceKind(t); ok {
			kind, rest = k, t[2:]
		} else if t.RootName() == "each" && forEachKind != "" && len(t) >= 2 {
			if a, ok := t[1].(hcl.TraverseAttr); ok && a.Name == "value" {
				kind, rest = forEachKind, t[2:]
			}
		}
		if kind == "" {
			continue
		}
		name := ""
		for _, step := range rest {
			if a, ok := step.(hcl.TraverseAttr); ok {
				name = a.Name
				break
			}
		}
		if a := Schema(kind).Attribute(name); name == "" || a == nil || a.Computed {
			return true
		}
	}
	return false
}
