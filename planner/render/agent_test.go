package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/planner"
)

// onAgents puts every instance of the blocks agents names on that agent,
// as the agent meta-argument would.
func onAgents(cfg *config.Config, agents map[string]string) *config.Config {
	cfg.Agents = map[string]*config.Agent{}
	for _, k := range []string{"agent.compute", "agent.storage"} {
		cfg.Agents[k] = &config.Agent{Key: k}
	}
	for _, inst := range cfg.Instances {
		inst.Agent = agents[inst.Addr.Resource.String()]
	}
	return cfg
}

// The plan shows each object's agent where it is made, replaced or
// destroyed, and a move to another agent as what forces the replacement.
func TestHumanShowsAgents(t *testing.T) {
	hosts := map[string]string{"protection_domain.rxe": "agent.storage", "listener.loop": "agent.storage", "endpoint.client": "agent.compute"}
	p := plan(t, onAgents(load(t, loopback), hosts), nil, planner.Options{})
	var b bytes.Buffer
	Human(&b, p, false)
	want := `  # endpoint.client[0] will be created
  + endpoint "client" {
        agent = agent.compute

      + address       = "10.77.0.1"
`
	if !strings.Contains(b.String(), want) || strings.Count(b.String(), "agent = agent.storage") != 2 {
		t.Fatalf("create:\n%s\nwant\n%s", b.String(), want)
	}

	st := applied(t, p)
	hosts["endpoint.client"] = "agent.storage"
	delete(hosts, "listener.loop")
	p = plan(t, onAgents(load(t, loopback), hosts), st, planner.Options{})
	b.Reset()
	Human(&b, p, false)
	for _, want := range []string{
		`  # endpoint.client[1] must be replaced
-/+ endpoint "client" {
      ~ agent = agent.compute -> agent.storage # forces replacement

`,
		`  # listener.loop must be replaced
-/+ listener "loop" {
      ~ agent = agent.storage -> (local) # forces replacement
`,
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("replace:\n%s\nwant\n%s", b.String(), want)
		}
	}

	doc := JSONDocument(p, nil)
	for _, rc := range doc.ResourceChanges {
		switch rc.Address {
		case "endpoint.client[1]":
			if rc.Agent != "agent.storage" || rc.PreviousAgent != "agent.compute" || len(rc.Change.ReplacePaths) == 0 || rc.Change.ReplacePaths[0][0] != "agent" {
				t.Errorf("JSON of %s: %+v", rc.Address, rc)
			}
		case "protection_domain.rxe":
			if rc.Agent != "agent.storage" || rc.PreviousAgent != "" {
				t.Errorf("JSON of %s: %+v", rc.Address, rc)
			}
		}
	}

	p = plan(t, nil, st, planner.Options{Destroy: true})
	b.Reset()
	Human(&b, p, false)
	if want := "  - endpoint \"client\" {\n        agent = agent.compute\n\n      - address"; !strings.Contains(b.String(), want) {
		t.Errorf("destroy:\n%s\nwant\n%s", b.String(), want)
	}
	// The local agent's objects show no agent line.
	b.Reset()
	Human(&b, plan(t, load(t, loopback), nil, planner.Options{}), false)
	if strings.Contains(b.String(), "agent =") {
		t.Errorf("local objects:\n%s", b.String())
	}
}
