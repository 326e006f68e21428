package command

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A state whose objects another host's agent holds is not planned,
// applied or destroyed from this host (they would read as gone and be made
// again here); state commands, and a plan without refresh, still read it.
func TestStateOfAnotherHostIsRefused(t *testing.T) {
	fabric := newMemFabric()
	meta := withFabric(t, fabric)
	dir := planDir(t, planTestConfig)
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color"); code != 0 {
		t.Fatalf("apply: %d\n%s\n%s", code, out, errs)
	}
	_, pulled, _ := meta.cmd(t, dir, "", "state", "pull")
	var doc map[string]any
	if err := json.Unmarshal([]byte(pulled), &doc); err != nil {
		t.Fatal(err)
	}
	for _, o := range doc["objects"].([]any) {
		facts, _ := o.(map[string]any)["facts"].(map[string]any)
		if facts == nil {
			facts = map[string]any{}
			o.(map[string]any)["facts"] = facts
		}
		facts["agent_host"] = "elsewhere.example"
	}
	doc["serial"] = doc["serial"].(float64) + 1
	moved, _ := json.Marshal(doc)
	if code, _, errs := meta.cmd(t, dir, string(moved), "state", "push", "-"); code != 0 {
		t.Fatalf("state push: %d %s", code, errs)
	}
	before, _ := os.ReadFile(filepath.Join(dir, "rdmaform.rdmastate"))
	// No agent answers on this host: a refused command starts none.
	fabric.stopped = true
	for _, args := range [][]string{{"plan", "-no-color"}, {"apply", "-auto-approve", "-no-color"}, {"destroy", "-auto-approve", "-no-color"}} {
		code, _, errs := meta.cmd(t, dir, "", args...)
		if code != 1 || !strings.Contains(errs, "Error: The state's objects are held by another host's agent") || !strings.Contains(errs, "  elsewhere.example: ") || !strings.Contains(errs, "workspace new") {
			t.Errorf("%v: %d\n%s", args, code, errs)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "rdmaform.rdmastate")); string(after) != string(before) {
		t.Error("a refused command changed the state")
	}
	if fabric.starts != 0 {
		t.Errorf("refused commands started %d agents on this host", fabric.starts)
	}
	// Without a refresh, a plan reads only the state: it may. Applied,
	// it acts on this host's agent: refused.
	if code, _, errs := meta.cmd(t, dir, "", "plan", "-refresh=false", "-destroy", "-out=tfplan", "-no-color"); code != 0 {
		t.Errorf("plan -refresh=false: %d %s", code, errs)
	}
	if code, _, errs := meta.cmd(t, dir, "", "apply", "-no-color", "tfplan"); code != 1 || !strings.Contains(errs, "Error: The state's objects are held by another host's agent") {
		t.Errorf("apply of the saved plan: %d\n%s", code, errs)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "rdmaform.rdmastate")); string(after) != string(before) {
		t.Error("the refused saved plan changed the state")
	}
	if code, out, _ := meta.cmd(t, dir, "", "state", "list"); code != 0 || out == "" {
		t.Errorf("state list: %d %q", code, out)
	}
}

// A plan whose state this host may act on starts an agent when none
// answers, once the state is read.
func TestPlanStartsAnAgentForItsOwnState(t *testing.T) {
	fabric := newMemFabric()
	fabric.stopped = true
	meta := withFabric(t, fabric)
	dir := planDir(t, planTestConfig)
	if code, _, errs := meta.cmd(t, dir, "", "plan", "-no-color"); code != 0 {
		t.Fatalf("plan: %d\n%s", code, errs)
	}
	if fabric.starts != 1 {
		t.Errorf("plan started %d agents, want 1", fabric.starts)
	}
}
