package command

import (
	"strings"
	"testing"
)

// show and show -json name the agent holding an object; objects on the
// local agent show no agent.
func TestShowAgent(t *testing.T) {
	st := `{"version":1,"lineage":"` + testLineage + `","serial":1,
 "objects":[{"address":"listener.l","type":"listener","agent":"agent.storage[\"s1\"]","schema_version":0,
   "attributes":{"address":"10.77.0.1","port":7801,"accept":null,"qp":null},"facts":{}},
  {"address":"listener.m","type":"listener","schema_version":0,
   "attributes":{"address":"10.77.0.1","port":7802,"accept":null,"qp":null},"facts":{}}],
 "outputs":{}}`
	dir := stateDir(t, st)
	code, out, errs := stateCmd(t, dir, "", "show")
	if code != 0 {
		t.Fatalf("show: %d %s", code, errs)
	}
	if !strings.Contains(out, "listener \"l\" {\n    agent = agent.storage[\"s1\"]\n") || strings.Count(out, "agent =") != 1 {
		t.Errorf("show:\n%s", out)
	}
	code, out, errs = stateCmd(t, dir, "", "show", "-json")
	if code != 0 {
		t.Fatalf("show -json: %d %s", code, errs)
	}
	if !strings.Contains(out, `"agent":"agent.storage[\"s1\"]"`) || strings.Count(out, `"agent":`) != 1 {
		t.Errorf("show -json: %s", out)
	}
}
