package planner

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config"
)

// readsAgent is how the refresh knows whose objects r's Live read: every
// agent's, unless r says otherwise (AgentScope).
func readsAgent(r Refresher) func(agent string) bool {
	if s, ok := r.(AgentScope); ok {
		return s.Reads
	}
	return func(string) bool { return true }
}

// AgentLabel is how plans and messages name an agent: its key, or "the
// local agent" for "".
func AgentLabel(agent string) string {
	if agent == "" {
		return "the local agent"
	}
	return agent
}

// agentsNotConfigured refuses to destroy objects whose agent the
// configuration no longer declares: an object is destroyed only through
// the agent holding it, as Terraform needs a resource's provider
// configuration until the resource is destroyed. One error per agent.
func agentsNotConfigured(cfg *config.Config, p *Plan) hcl.Diagnostics {
	var agents []string
	objects := map[string][]string{}
	for _, c := range p.Changes {
		if !c.Action.Deletes() || c.PriorAgent == "" || cfg.Agents[c.PriorAgent] != nil {
			continue
		}
		if objects[c.PriorAgent] == nil {
			agents = append(agents, c.PriorAgent)
		}
		objects[c.PriorAgent] = append(objects[c.PriorAgent], c.Addr.String())
	}
	sort.Strings(agents)
	var diags hcl.Diagnostics
	for _, a := range agents {
		list := objects[a]
		sort.Strings(list)
		shown := strings.Join(list[:min(len(list), 3)], ", ")
		if len(list) > 3 {
			shown += fmt.Sprintf(" and %d more", len(list)-3)
		}
		diags = append(diags, sourceless(hcl.DiagError, "Agent configuration not present",
			fmt.Sprintf("The state records %s on %s, which the configuration no longer declares, and this plan destroys them: an object can be destroyed only through the agent holding it. Keep (or add back) the agent block of %s, with its address and tls settings, until those objects are destroyed; then remove it.", shown, a, a)))
	}
	return diags
}
