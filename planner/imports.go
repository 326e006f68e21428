package planner

import (
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
)

// markImports turns the creation of each import block's target into its
// import: the state does not hold it, so apply adopts the object the agent
// holds as the block's id instead of making one. A target the state holds
// already is left as it is, as in Terraform.
func (p *Plan) markImports(cfg *config.Config) {
	for _, im := range cfg.Imports {
		c := p.Change(im.To)
		if c == nil || c.Action != Create || c.Reason != ReasonNone {
			continue
		}
		c.ImportID = im.ID
		if c.ImportID == "" {
			c.ImportID = AgentName(im.To, cfg.AgentNamespace())
		}
	}
}

// AgentName is the name the agent holds a configuration's object at addr
// by, under the configuration's agent namespace ("" for none).
func AgentName(addr addrs.Instance, namespace string) string {
	if namespace == "" {
		return addr.String()
	}
	return addr.String() + "@" + namespace
}
