package config

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
)

// OutputsWith evaluates the outputs again with the objects they reference
// taking their values from valueOf (an object it has no value for keeps
// its configured value). The configuration is evaluated before anything
// is applied, so an output using an attribute known only after apply
// (qp_num, device, local_port, ...) is unknown in Outputs; the planner
// passes the values objects keep from the state, and apply the values it
// made, so that such outputs are known when they can be. Locals are not
// evaluated again: an output reaching such an attribute through a local
// stays unknown. An output whose new evaluation fails keeps its value.
func (c *Config) OutputsWith(valueOf func(addrs.Instance) (cty.Value, bool)) map[string]cty.Value {
	out := make(map[string]cty.Value, len(c.Outputs))
	used := map[addrs.Resource]bool{}
	for name, o := range c.Outputs {
		out[name] = o.Value
		if o.expr == nil {
			continue
		}
		refs := o.expr.Variables()
		for _, t := range refs {
			if r, ok := c.referencedResource(t); ok {
				used[r] = true
			}
		}
		c.addLocalResources(refs, used)
	}
	if len(used) == 0 {
		return out
	}
	ctx := c.contextOf(used, valueOf)
	for name, o := range c.Outputs {
		if o.expr == nil {
			continue
		}
		if v, diags := o.expr.Value(ctx); !diags.HasErrors() {
			out[name], _ = unmarkSensitive(v)
		}
	}
	return out
}

// contextWith is the context to evaluate expressions with the references
// refs in, with valueOf's values of the objects apply made.
func (c *Config) contextWith(refs []hcl.Traversal, valueOf func(addrs.Instance) (cty.Value, bool)) *hcl.EvalContext {
	used := map[addrs.Resource]bool{}
	for _, t := range refs {
		if r, ok := c.referencedResource(t); ok {
			used[r] = true
		}
	}
	c.addLocalResources(refs, used)
	return c.contextOf(used, valueOf)
}

// contextOf is the context with the used blocks' values from valueOf.
func (c *Config) contextOf(used map[addrs.Resource]bool, valueOf func(addrs.Instance) (cty.Value, bool)) *hcl.EvalContext {
	res := make(map[addrs.Resource]cty.Value, len(used))
	byResource := c.instancesByResource()
	for r := range used {
		res[r] = c.resourceValueWith(c.Resources[r], byResource[r], valueOf)
	}
	return fullContext(c.builtins(), c.Variables, c.localsWith(c.Variables, res), res, c.functions())
}

// referencedResource is the block a traversal such as endpoint.client[0].qp_num
// starts with, if the configuration declares it.
func (c *Config) referencedResource(t hcl.Traversal) (addrs.Resource, bool) {
	if len(t) < 2 {
		return addrs.Resource{}, false
	}
	attr, ok := t[1].(hcl.TraverseAttr)
	if !ok {
		return addrs.Resource{}, false
	}
	r := addrs.Resource{Kind: addrs.Kind(t.RootName()), Name: attr.Name}
	_, declared := c.Resources[r]
	return r, declared
}

// resourceValueWith is a block's value as expressions see it (a tuple with
// count, an object by key with for_each, else the one object), each
// instance from valueOf when it has one; insts are in address order.
func (c *Config) resourceValueWith(r *Resource, insts []*Instance, valueOf func(addrs.Instance) (cty.Value, bool)) cty.Value {
	if r.instancesUnknown {
		return cty.DynamicVal
	}
	values := make([]cty.Value, len(insts))
	for i, inst := range insts {
		values[i] = inst.Value
		if v, ok := valueOf(inst.Addr); ok && !v.IsNull() {
			values[i] = v
		}
	}
	switch {
	case r.Count != nil:
		if len(values) == 0 {
			return cty.EmptyTupleVal
		}
		return cty.TupleVal(values)
	case r.ForEach != nil:
		m := make(map[string]cty.Value, len(values))
		for i, inst := range insts {
			if k, ok := inst.Addr.Key.(addrs.StringKey); ok {
				m[string(k)] = values[i]
			}
		}
		return cty.ObjectVal(m)
	case len(values) == 1:
		return values[0]
	}
	return cty.DynamicVal
}
