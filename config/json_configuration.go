package config

import (
	"encoding/json"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// JSONConfiguration is the configuration as Terraform's plan JSON gives
// it (configuration.root_module): each block's expressions, as the
// constant value of one without references or the references it makes,
// its count or for_each, and the outputs and variables. Policy tools
// (OPA, terraform-compliance) read it.
func (c *Config) JSONConfiguration() map[string]any {
	root := map[string]any{}
	var resources []map[string]any
	for _, a := range sortedResources(c.Resources) {
		r := c.Resources[a]
		res := map[string]any{
			"address": a.String(), "mode": "managed", "type": string(a.Kind), "name": a.Name,
			"provider_config_key": "rdmaform", "schema_version": 0, "expressions": map[string]any{},
		}
		if r.body != nil {
			res["expressions"] = r.body.jsonExpressions()
		}
		if r.Count != nil {
			res["count_expression"] = jsonExpression(r.Count)
		}
		if r.ForEach != nil {
			res["for_each_expression"] = jsonExpression(r.ForEach)
		}
		if len(r.dependsOn) > 0 {
			var deps []string
			for _, tr := range r.dependsOn {
				deps = append(deps, TraversalString(tr))
			}
			res["depends_on"] = deps
		}
		resources = append(resources, res)
	}
	if len(resources) > 0 {
		root["resources"] = resources
	}
	if len(c.Outputs) > 0 {
		outputs := map[string]any{}
		for name, o := range c.Outputs {
			out := map[string]any{"sensitive": o.Sensitive}
			if o.expr != nil {
				out["expression"] = jsonExpression(o.expr)
			}
			if o.Description != "" {
				out["description"] = o.Description
			}
			outputs[name] = out
		}
		root["outputs"] = outputs
	}
	if len(c.Variables) > 0 {
		vars := map[string]any{}
		for name, v := range c.Variables {
			out := map[string]any{}
			if v.Default != cty.NilVal && v.Default.IsWhollyKnown() {
				out["default"] = jsonConstant(v.Default)
			}
			if v.Description != "" {
				out["description"] = v.Description
			}
			if v.Sensitive {
				out["sensitive"] = true
			}
			vars[name] = out
		}
		root["variables"] = vars
	}
	return map[string]any{"root_module": root}
}

func sortedResources(m map[addrs.Resource]*Resource) []addrs.Resource {
	out := make([]addrs.Resource, 0, len(m))
	for a := range m {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// jsonExpressions are a body's set attributes and nested blocks, each
// block a list of one body, as Terraform's.
func (t *bodyTemplate) jsonExpressions() map[string]any {
	out := map[string]any{}
	for i, slot := range t.attrs {
		if slot.attr != nil {
			out[t.schema.Attributes[i].Name] = jsonExpression(slot.attr.Expr)
		}
	}
	for i, b := range t.blocks {
		if b != nil {
			out[t.schema.Blocks[i].Name] = []any{b.jsonExpressions()}
		}
	}
	return out
}

// jsonExpression is {"constant_value": v} for an expression without
// references, else {"references": [...]}: each reference and the objects
// it is in, as Terraform lists them (listener.l.port, listener.l).
func jsonExpression(e hcl.Expression) map[string]any {
	vars := e.Variables()
	if len(vars) == 0 {
		v, diags := e.Value(&hcl.EvalContext{Functions: Functions()})
		if diags.HasErrors() || !v.IsWhollyKnown() {
			return map[string]any{}
		}
		return map[string]any{"constant_value": jsonConstant(v)}
	}
	var refs []string
	seen := map[string]bool{}
	for _, tr := range vars {
		for n := len(tr); n >= 2; n-- {
			s := TraversalString(tr[:n])
			if !seen[s] {
				seen[s] = true
				refs = append(refs, s)
			}
		}
	}
	return map[string]any{"references": refs}
}

func jsonConstant(v cty.Value) json.RawMessage {
	v, _ = v.UnmarkDeep()
	b, err := ctyjson.Marshal(v, v.Type())
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}
