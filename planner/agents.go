package planner

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
