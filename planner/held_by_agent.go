package planner

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/state"
)

// heldByAgent refuses creates whose name the agent already holds for an
// object this state does not record (made by another configuration in
// the same namespace, or by this one before its state was lost or a
// removed block forgot it): the agent would refuse the create at apply.
// A name a state object holds (moved away from the address) is not one:
// apply makes the new object under another name.
func heldByAgent(p *Plan, cfg *config.Config, st *state.State, live map[string]LiveObject) hcl.Diagnostics {
	if live == nil {
		return nil
	}
	var held map[string]addrs.Instance // made at the first create: a no-change plan of 10,000 objects has none
	var diags hcl.Diagnostics
	for _, c := range p.Changes {
		if c.Action != Create || c.Importing() {
			continue
		}
		if held == nil {
			held = HeldNames(st)
		}
		name := AgentName(c.Addr, cfg.AgentNamespace())
		if _, ours := held[name]; ours {
			continue
		}
		lo, ok := live[name]
		if !ok || lo.Agent != c.Agent {
			continue // another agent's object of that name is no clash
		}
		d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Object already held by the agent",
			Detail: fmt.Sprintf("The agent already holds an object named %s (%s), which this state does not record, so apply could not make %s: another configuration made it, or this one did before its state was lost or a removed block forgot it. If it is the object this block declares, adopt it: \"rdmaform import %s\" (or an import block). If another configuration uses the same address, give one of them a namespace of its own (rdmaform { agent { namespace = \"NAME\" } }).",
				name, lo.Status, c.Addr, c.Addr)}
		if inst := cfg.Instances[c.Addr]; inst != nil && inst.Resource != nil {
			d.Subject = inst.Resource.DeclRange.Ptr()
		}
		diags = append(diags, d)
	}
	return diags
}

// HeldNames maps the agent names st's objects hold, their deposed
// objects' included, to the objects' addresses: an object moved to
// another address keeps the name it was made under (moved blocks change
// no live object).
func HeldNames(st *state.State) map[string]addrs.Instance {
	names := map[string]addrs.Instance{}
	if st == nil {
		return names
	}
	for _, o := range st.Objects {
		names[AgentHandle(o)] = o.Addr
		if d := o.Facts.Deposed; d != nil && d.AgentHandle != "" {
			names[d.AgentHandle] = o.Addr
		}
	}
	return names
}
