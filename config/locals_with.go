package config

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
)

// localExpr is a local value's expression.
type localExpr struct {
	name string
	expr hcl.Expression
}

// localDependents says which locals depend, directly or through other
// locals, on blocks' values.
type localDependents struct {
	resources map[string]map[addrs.Resource]bool // by local: the blocks it reaches
	computed  map[string]bool                    // by local: it reaches a computed attribute
}

// localDependentsOf works out, once, which blocks each local reaches and
// whether it reaches values known only after apply.
func (c *Config) localDependentsOf() localDependents {
	c.dependentsOnce.Do(func() {
		d := localDependents{resources: map[string]map[addrs.Resource]bool{}, computed: map[string]bool{}}
		for _, l := range c.localOrder { // each after the locals it references
			trs := l.expr.Variables()
			for _, t := range trs {
				if r, ok := c.referencedResource(t); ok {
					addResource(d.resources, l.name, r)
				}
				if name, ok := localName(t); ok {
					for r := range d.resources[name] {
						addResource(d.resources, l.name, r)
					}
					d.computed[l.name] = d.computed[l.name] || d.computed[name]
				}
			}
			d.computed[l.name] = d.computed[l.name] || usesComputed(trs, "")
		}
		c.dependents = d
	})
	return c.dependents
}

func addResource(m map[string]map[addrs.Resource]bool, local string, r addrs.Resource) {
	if m[local] == nil {
		m[local] = map[addrs.Resource]bool{}
	}
	m[local][r] = true
}

// localName is the local a traversal such as local.peers[0] names.
func localName(t hcl.Traversal) (string, bool) {
	if t.RootName() != "local" || len(t) < 2 {
		return "", false
	}
	a, ok := t[1].(hcl.TraverseAttr)
	return a.Name, ok
}

// addLocalResources adds to used the blocks the locals refs name reach.
func (c *Config) addLocalResources(refs []hcl.Traversal, used map[addrs.Resource]bool) {
	d := c.localDependentsOf()
	for _, t := range refs {
		if name, ok := localName(t); ok {
			for r := range d.resources[name] {
				used[r] = true
			}
		}
	}
}

// localsWith is the locals with those that reach blocks evaluated again
// with the blocks' values res (a local whose new evaluation fails keeps
// its value).
func (c *Config) localsWith(variables map[string]*Variable, res map[addrs.Resource]cty.Value) map[string]cty.Value {
	d := c.localDependentsOf()
	if len(d.resources) == 0 {
		return c.Locals
	}
	out := make(map[string]cty.Value, len(c.Locals))
	for k, v := range c.Locals {
		out[k] = v
	}
	for _, l := range c.localOrder {
		if len(d.resources[l.name]) == 0 {
			continue
		}
		if v, diags := l.expr.Value(fullContext(c.builtins(), variables, out, res, c.functions())); !diags.HasErrors() {
			out[l.name] = v
		}
	}
	return out
}
