package planner

import (
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
)

// importTargets are the import blocks' targets the state does not hold,
// with the agent's name for each: the plan adopts them instead of
// creating them. A target the state holds already is left as it is, as in
// Terraform; one the agent lost (gone) is created again.
func importTargets(cfg *config.Config, priors map[string]*prior, gone map[addrs.Instance]bool) map[addrs.Instance]string {
	out := map[addrs.Instance]string{}
	for _, im := range cfg.Imports {
		if priors[im.To.String()] != nil || gone[im.To] {
			continue
		}
		id := im.ID
		if id == "" {
			id = AgentName(im.To, cfg.AgentNamespace())
		}
		out[im.To] = id
	}
	return out
}

// withID is v with its id attribute set: an imported object's id is the
// agent's name for it, known when planning.
func withID(v cty.Value, id string) cty.Value {
	if v.IsNull() || !v.IsKnown() || v.IsMarked() || !v.Type().IsObjectType() || !v.Type().HasAttribute("id") {
		return v
	}
	m := v.AsValueMap()
	m["id"] = cty.StringVal(id)
	return cty.ObjectVal(m)
}

// AgentName is the name the agent holds a configuration's object at addr
// by, under the configuration's agent namespace ("" for none).
func AgentName(addr addrs.Instance, namespace string) string {
	if namespace == "" {
		return addr.String()
	}
	return addr.String() + "@" + namespace
}
