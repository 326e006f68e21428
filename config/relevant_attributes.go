package config

import (
	"encoding/json"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
)

// ResourceAttr is an object's attribute that something references, as
// Terraform's plan JSON relevant_attributes give it: the object or block
// (endpoint.e[0], endpoint.e) and the path in it, [] for the whole.
type ResourceAttr struct {
	Resource  string `json:"resource"`
	Attribute []any  `json:"attribute"`
}

// RelevantAttributes are the attributes of objects that the changing
// blocks (resources) and outputs (by name) reference, as do the check
// blocks, with those the referenced blocks reference in turn, directly or
// through locals: a change outside rdmaform to any other attribute cannot
// alter the plan. As Terraform's, a block's references include its count,
// for_each and conditions. Sorted, without duplicates; [] for none.
func (c *Config) RelevantAttributes(resources []addrs.Resource, outputs []string) []ResourceAttr {
	var refs []hcl.Traversal
	for _, n := range outputs {
		if o := c.Outputs[n]; o != nil {
			if o.expr != nil {
				refs = append(refs, o.expr.Variables()...)
			}
			refs = append(refs, conditionsTraversals(o.Preconditions)...)
		}
	}
	for _, ch := range c.Checks {
		refs = append(refs, conditionsTraversals(ch.Asserts)...)
	}
	walked := map[addrs.Resource]bool{}
	for _, r := range resources {
		refs = append(refs, c.blockTraversals(r, walked)...)
	}
	seenLocal := map[string]bool{}
	out := []ResourceAttr{}
	seen := map[string]bool{}
	for len(refs) > 0 {
		t := refs[0]
		refs = refs[1:]
		if name, ok := localName(t); ok {
			if !seenLocal[name] {
				seenLocal[name] = true
				refs = append(refs, c.localTraversals(name)...)
			}
			continue
		}
		r, ok := c.referencedResource(t)
		if !ok {
			continue
		}
		refs = append(refs, c.blockTraversals(r, walked)...)
		ra := resourceAttr(r, t[2:])
		if key, _ := json.Marshal(ra); !seen[string(key)] {
			seen[string(key)] = true
			out = append(out, ra)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Resource != out[j].Resource {
			return out[i].Resource < out[j].Resource
		}
		a, _ := json.Marshal(out[i].Attribute)
		b, _ := json.Marshal(out[j].Attribute)
		return string(a) < string(b)
	})
	return out
}

// blockTraversals are the references of a block not yet walked: its
// attributes and nested blocks, count or for_each, and conditions.
func (c *Config) blockTraversals(a addrs.Resource, walked map[addrs.Resource]bool) []hcl.Traversal {
	r := c.Resources[a]
	if r == nil || walked[a] {
		return nil
	}
	walked[a] = true
	var refs []hcl.Traversal
	if r.body != nil {
		refs = append(refs, r.body.allTraversals()...)
	}
	for _, e := range []hcl.Expression{r.Count, r.ForEach} {
		if e != nil {
			refs = append(refs, e.Variables()...)
		}
	}
	conds, _, _ := r.conditionTraversals()
	return append(refs, conds...)
}

// localTraversals are the references of the local name's expression.
func (c *Config) localTraversals(name string) []hcl.Traversal {
	for _, l := range c.localOrder {
		if l.name == name {
			return l.expr.Variables()
		}
	}
	return nil
}

func conditionsTraversals(conds []*Condition) []hcl.Traversal {
	var out []hcl.Traversal
	for _, cond := range conds {
		refs, _ := cond.traversals()
		out = append(out, refs...)
	}
	return out
}

// resourceAttr is the attribute of block r that the traversal rest (what
// follows the block's name) reaches: an instance key first names the
// object, and the steps after it are the path.
func resourceAttr(r addrs.Resource, rest hcl.Traversal) ResourceAttr {
	resource := r.String()
	if len(rest) > 0 {
		if ix, ok := rest[0].(hcl.TraverseIndex); ok && ix.Key.IsKnown() && !ix.Key.IsNull() && ix.Key.Type().IsPrimitiveType() {
			resource, rest = resource+"["+compactValue(ix.Key)+"]", rest[1:]
		}
	}
	path := []any{}
	for _, step := range rest {
		switch s := step.(type) {
		case hcl.TraverseAttr:
			path = append(path, s.Name)
		case hcl.TraverseIndex:
			switch {
			case !s.Key.IsKnown() || s.Key.IsNull():
				return ResourceAttr{Resource: resource, Attribute: path}
			case s.Key.Type() == cty.String:
				path = append(path, s.Key.AsString())
			case s.Key.Type() == cty.Number:
				path = append(path, json.Number(NumberString(s.Key)))
			default:
				return ResourceAttr{Resource: resource, Attribute: path}
			}
		default:
			return ResourceAttr{Resource: resource, Attribute: path}
		}
	}
	return ResourceAttr{Resource: resource, Attribute: path}
}
