package planner

import (
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
)

// RelevantAttributes are plan JSON's relevant_attributes: the objects'
// attributes that the blocks p changes and the outputs it changes
// reference in cfg (see config.Config.RelevantAttributes).
func RelevantAttributes(cfg *config.Config, p *Plan) []config.ResourceAttr {
	var blocks []addrs.Resource
	seen := map[addrs.Resource]bool{}
	for _, c := range p.Changes {
		if c.Action != NoOp && !seen[c.Addr.Resource] {
			seen[c.Addr.Resource] = true
			blocks = append(blocks, c.Addr.Resource)
		}
	}
	var outputs []string
	for _, oc := range p.ChangedOutputs() {
		outputs = append(outputs, oc.Name)
	}
	return cfg.RelevantAttributes(blocks, outputs)
}
