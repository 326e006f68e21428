package apply

import (
	"sort"

	"github.com/rdmaform/rdmaform/planner"
)

// nodeAgent is the agent an operation of the graph is made through: a
// delete's object is where the state records it, a create's or update's
// where the configuration puts it.
func nodeAgent(n planner.Node) string {
	if n.Change == nil {
		return ""
	}
	if n.Op == planner.OpDelete {
		return n.Change.PriorAgent
	}
	return n.Change.Agent
}

// agentGone notes that agent's fabric is gone (err said so), and reports
// whether every agent the walk uses is now gone.
func (e *executor) agentGone(agent string, err error) (all bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.report.FabricGone == nil {
		e.report.FabricGone = err
	}
	if !e.gone[agent] {
		e.gone[agent] = true
		e.report.GoneAgents = append(e.report.GoneAgents, agent)
		sort.Strings(e.report.GoneAgents)
	}
	return len(e.gone) >= len(e.agents)
}

// isGone reports whether agent's fabric is gone.
func (e *executor) isGone(agent string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.gone[agent]
}
