package command

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const importBlockConfig = `
listener "loop" {
  address = "10.77.0.1"
  port    = 7471
}

endpoint "client" {
  count   = 2
  address = listener.loop.address
  port    = listener.loop.port
}

import {
  to = listener.loop
}

import {
  to = endpoint.client[0]
  id = "endpoint.old"
}
`

func TestImportBlocksAdoptWhatTheAgentHolds(t *testing.T) {
	f := newMemFabric()
	f.live["listener.loop"] = "tok-l"
	f.live["endpoint.old"] = "tok-e"
	meta := withFabric(t, f)
	dir := planDir(t, importBlockConfig)

	code, out, errs := meta.cmd(t, dir, "", "plan", "-no-color", "-detailed-exitcode")
	if code != 2 {
		t.Fatalf("plan: exit %d, want 2\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{
		"  # listener.loop will be imported\n  # (imported from \"listener.loop\")\n    listener \"loop\" {\n",
		"  # endpoint.client[0] will be imported\n  # (imported from \"endpoint.old\")\n",
		"  # endpoint.client[1] will be created\n",
		"Plan: 2 to import, 1 to add, 0 to change, 0 to destroy.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "+ port") && strings.Index(out, "+ port") < strings.Index(out, "endpoint.client[1] will be created") {
		t.Errorf("an imported object's attributes are shown with +:\n%s", out)
	}

	code, out, errs = planDocument(t, meta, dir)
	var doc struct {
		ResourceChanges []struct {
			Address string
			Change  struct {
				Actions   []string
				Importing *struct{ ID string }
			}
		} `json:"resource_changes"`
		Summary map[string]int
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil {
		t.Fatalf("plan -json: exit %d\n%s\n%s", code, out, errs)
	}
	for _, rc := range doc.ResourceChanges {
		imported := rc.Address == "listener.loop" || rc.Address == "endpoint.client[0]"
		if imported != (rc.Change.Importing != nil) || imported && (rc.Change.Actions[0] != "no-op" || rc.Change.Importing.ID == "") {
			t.Errorf("%s: actions %v, importing %+v", rc.Address, rc.Change.Actions, rc.Change.Importing)
		}
	}
	if doc.Summary["import"] != 2 || doc.Summary["add"] != 1 {
		t.Errorf("summary %v, want 2 to import and 1 to add", doc.Summary)
	}

	code, out, errs = meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color")
	if code != 0 || !strings.Contains(out, "endpoint.client[0]: Importing... [id=endpoint.old]") ||
		!strings.Contains(out, "endpoint.client[0]: Import complete [id=endpoint.old]") ||
		!strings.Contains(out, "Apply complete! Resources: 2 imported, 1 added, 0 changed, 0 destroyed.") {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errs)
	}
	if len(f.live) != 3 {
		t.Errorf("the fabric holds %v, want the two adopted objects and one new endpoint", f.live)
	}
	code, out, _ = meta.cmd(t, dir, "", "state", "show", "endpoint.client[0]")
	if code != 0 || !strings.Contains(out, `"endpoint.old"`) {
		t.Errorf("state show endpoint.client[0]: the agent's name is not recorded:\n%s", out)
	}
	// The blocks stay; the state holds their targets now.
	code, out, errs = meta.cmd(t, dir, "", "plan", "-no-color", "-detailed-exitcode")
	if code != 0 || !strings.Contains(out, "No changes.") {
		t.Fatalf("plan after the import: exit %d\n%s\n%s", code, out, errs)
	}
}

// An import of what the agent does not hold fails the plan, as
// Terraform's "Cannot import non-existent remote object": a reviewed
// plan does not fail half-way. What the agent holds for that address
// under a # name (a create_before_destroy replacement's) is named.
func TestImportBlockOfWhatTheAgentDoesNotHoldFailsThePlan(t *testing.T) {
	f := newMemFabric()
	f.live["listener.loop"] = "tok-l"
	f.live["endpoint.old#5f3a9c21"] = "tok-e"
	meta := withFabric(t, f)
	dir := planDir(t, importBlockConfig)
	code, out, errs := meta.cmd(t, dir, "", "plan", "-no-color")
	if code != 1 || !strings.Contains(errs, "Error: Cannot import non-existent remote object") ||
		!strings.Contains(errs, "endpoint.client[0] imports the agent's endpoint.old, which the agent does not hold. It holds endpoint.old under \"endpoint.old#5f3a9c21\"") ||
		!strings.Contains(errs, "on main.rdma.hcl:17:1") {
		t.Fatalf("plan: exit %d, want 1 naming the missing object\n%s\n%s", code, out, errs)
	}
	code, out, errs = meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color")
	if _, err := os.Stat(filepath.Join(dir, "rdmaform.rdmastate")); code != 1 || len(f.live) != 2 || err == nil {
		t.Fatalf("apply: exit %d, the fabric holds %v, a state was written (%v)\n%s\n%s", code, f.live, err == nil, out, errs)
	}
}

// An object gone from the agent between plan -out and apply fails that
// import alone: the rest of the plan is carried out and recorded.
func TestImportOfAnObjectGoneSincePlanFailsAndKeepsTheRest(t *testing.T) {
	f := newMemFabric()
	f.live["listener.loop"] = "tok-l"
	f.live["endpoint.old"] = "tok-e"
	meta := withFabric(t, f)
	dir := planDir(t, importBlockConfig)
	if code, out, errs := meta.cmd(t, dir, "", "plan", "-out=tfplan", "-no-color"); code != 0 {
		t.Fatalf("plan: %d\n%s%s", code, out, errs)
	}
	f.mu.Lock()
	delete(f.live, "endpoint.old")
	f.mu.Unlock()
	code, out, errs := meta.cmd(t, dir, "", "apply", "-no-color", "tfplan")
	if code != 1 || !strings.Contains(errs, "endpoint.client[0]") || !strings.Contains(errs, "the agent holds no endpoint.old") {
		t.Fatalf("apply: exit %d, want 1 naming the missing object\n%s\n%s", code, out, errs)
	}
	if n := stateObjects(t, dir); n != 2 {
		t.Errorf("the state holds %d objects, want the imported listener and the created endpoint.client[1]", n)
	}
}

// Importing an object does not replace what uses it: the object adopted
// is the one they use, its id the agent's name for it.
func TestImportBlockLeavesDependentsAlone(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	src := `
listener "loop" {
  address = "10.77.0.1"
  port    = 7471
}

endpoint "client" {
  address = listener.loop.address
  port    = listener.loop.port
  connect {
    private_data = "via ${listener.loop.id}"
  }
}
`
	dir := planDir(t, src)
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color"); code != 0 {
		t.Fatalf("apply: %d\n%s\n%s", code, out, errs)
	}
	if code, _, errs := meta.cmd(t, dir, "", "state", "rm", "listener.loop"); code != 0 {
		t.Fatalf("state rm: %d %s", code, errs)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.rdma.hcl"), []byte(src+"\nimport {\n  to = listener.loop\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := meta.cmd(t, dir, "", "plan", "-no-color", "-detailed-exitcode")
	if code != 2 || !strings.Contains(out, "Plan: 1 to import, 0 to add, 0 to change, 0 to destroy.") || strings.Contains(out, "endpoint.client must be replaced") {
		t.Fatalf("plan: %d\n%s\n%s", code, out, errs)
	}
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color"); code != 0 || !strings.Contains(out, "Resources: 1 imported, 0 added, 0 changed, 0 destroyed.") {
		t.Fatalf("apply: %d\n%s\n%s", code, out, errs)
	}
	if code, out, _ := meta.cmd(t, dir, "", "plan", "-no-color", "-detailed-exitcode"); code != 0 {
		t.Fatalf("plan after the import: %d\n%s", code, out)
	}
}

// An import block with for_each adopts one object per element.
func TestImportBlockWithForEachAdoptsEach(t *testing.T) {
	f := newMemFabric()
	f.live["endpoint.client[0]"] = "tok-0"
	f.live["endpoint.client[1]"] = "tok-1"
	meta := withFabric(t, f)
	dir := planDir(t, `
endpoint "client" {
  count   = 2
  address = "10.77.0.1"
  port    = 7471
}

import {
  for_each = range(2)
  to       = endpoint.client[each.value]
}
`)
	code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color")
	if code != 0 || !strings.Contains(out, "Apply complete! Resources: 2 imported, 0 added, 0 changed, 0 destroyed.") {
		t.Fatalf("apply: %d\n%s%s", code, out, errs)
	}
	if n := stateObjects(t, dir); n != 2 {
		t.Errorf("%d objects in the state, want 2", n)
	}
}
