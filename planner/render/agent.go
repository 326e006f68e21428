package render

import (
	"bytes"

	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/tui/termsafe"
)

// writeAgent writes the agent line of an object that has one (its agent
// meta-argument), as the first line of its body: plain where the object
// is made, replaced or destroyed on its agent, with "# forces
// replacement" when the configuration moves it to another agent (an
// object lives on its host). Objects of the local agent, and updates,
// show none.
func writeAgent(b *bytes.Buffer, c colorizer, ch *planner.Change) {
	switch {
	case ch.Action.IsReplace() && ch.AgentChanged():
		b.WriteString("      " + c.symbol("~") + " agent = " + agentName(ch.PriorAgent) + " -> " + agentName(ch.Agent) +
			c.style(" # forces replacement", red) + "\n\n")
	case ch.Agent != "" && (ch.Action.Creates() || ch.Action == planner.Delete):
		b.WriteString("        agent = " + agentName(ch.Agent) + "\n\n")
	}
}

// agentName is an agent's key as a plan shows it; the local agent, which
// has no key, is "(local)".
func agentName(agent string) string {
	if agent == "" {
		return "(local)"
	}
	return termsafe.String(agent)
}
