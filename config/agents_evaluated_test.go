package config

import (
	"strings"
	"testing"
)

// Loader.AgentsEvaluated is given the agents once, the very ones Load
// returns, and not at all when an agent is in error or there is none.
func TestAgentsEvaluatedBeforeObjects(t *testing.T) {
	const agents = `
agent "h" {
  for_each = { a = "10.77.1.1:7470", b = "10.77.1.2:7470" }
  address  = each.value
  tls {
    ca_file   = "ca.pem"
    cert_file = "c.pem"
    key_file  = "k.pem"
  }
}
`
	const objects = `
endpoint "e" {
  agent   = agent.h["a"]
  address = "10.77.0.1"
  port    = 7999
}
`
	var calls []map[string]*Agent
	l := NewLoader()
	l.AgentsEvaluated = func(a map[string]*Agent) { calls = append(calls, a) }
	cfg, diags := l.Load(writeDir(t, map[string]string{"main.rdma.hcl": agents + objects}), VarInputs{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if len(calls) != 1 || len(calls[0]) != 2 || calls[0][`agent.h["a"]`] != cfg.Agents[`agent.h["a"]`] || calls[0][`agent.h["b"]`].Address != "10.77.1.2:7470" {
		t.Fatalf("AgentsEvaluated calls: %v", calls)
	}

	calls = nil
	bad := strings.Replace(agents, `address  = each.value`, `address  = "no port"`, 1)
	l = NewLoader()
	l.AgentsEvaluated = func(a map[string]*Agent) { calls = append(calls, a) }
	if _, diags := l.Load(writeDir(t, map[string]string{"main.rdma.hcl": bad + objects}), VarInputs{}); !diags.HasErrors() {
		t.Fatal("an agent without a port loaded")
	}
	if len(calls) != 0 {
		t.Fatalf("AgentsEvaluated called with an agent in error: %v", calls)
	}

	calls = nil
	l = NewLoader()
	l.AgentsEvaluated = func(a map[string]*Agent) { calls = append(calls, a) }
	if _, diags := l.Load(writeDir(t, map[string]string{"main.rdma.hcl": objects[:strings.Index(objects, "endpoint")]}), VarInputs{}); diags.HasErrors() {
		t.Fatal(diags)
	}
	if len(calls) != 0 {
		t.Fatalf("AgentsEvaluated called without agent blocks: %v", calls)
	}
}
