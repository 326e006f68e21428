package command

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Renaming blocks with moved blocks relabels their objects in the state:
// no object is destroyed or made, and the agent keeps holding each under
// the name it was made with.
func TestMovedBlocksRelabelWithoutTouchingTheFabric(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	dir := planDir(t, planTestConfig)
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve"); code != 0 {
		t.Fatalf("apply: %d\n%s\n%s", code, out, errs)
	}
	created := f.qp
	renamed := strings.NewReplacer(`listener "loop"`, `listener "main"`, "listener.loop", "listener.main", `endpoint "client"`, `endpoint "clients"`).Replace(planTestConfig) + `
moved {
  from = listener.loop
  to   = listener.main
}
moved {
  from = endpoint.client
  to   = endpoint.clients
}
`
	os.WriteFile(filepath.Join(dir, "main.rdma.hcl"), []byte(renamed), 0o644)
	code, out, errs := meta.cmd(t, dir, "", "plan", "-no-color", "-detailed-exitcode", "-out=moves.plan")
	if code != 2 || !strings.Contains(out, "# endpoint.client[1] has moved to endpoint.clients[1]") ||
		!strings.Contains(out, "# listener.loop has moved to listener.main") ||
		!strings.Contains(out, "Plan: 0 to add, 0 to change, 0 to destroy.") || strings.Contains(out, "will be") {
		t.Fatalf("plan of the moves: %d\n%s\n%s", code, out, errs)
	}
	if code, out, _ := meta.cmd(t, dir, "", "show", "-json", "moves.plan"); code != 0 || !strings.Contains(out, `"previous_address":"endpoint.client[0]"`) {
		t.Fatalf("show -json of the saved plan: %d\n%s", code, out)
	}
	code, out, errs = meta.cmd(t, dir, "", "apply", "-no-color", "moves.plan")
	if code != 0 || !strings.Contains(out, "Apply complete! Resources: 0 added, 0 changed, 0 destroyed.") {
		t.Fatalf("apply of the moves: %d\n%s\n%s", code, out, errs)
	}
	if f.qp != created || len(f.live) != 4 {
		t.Fatalf("the moves touched the fabric: %d creates since, live %v", f.qp-created, f.live)
	}
	_, list, _ := meta.cmd(t, dir, "", "state", "list")
	if want := "endpoint.clients[0]\nendpoint.clients[1]\nlistener.main\nprotection_domain.rxe\n"; list != want {
		t.Fatalf("state list after the moves:\n%s\nwant\n%s", list, want)
	}
	if _, out, _ := meta.cmd(t, dir, "", "state", "show", "endpoint.clients[0]"); !strings.Contains(out, `agent_handle = "endpoint.client[0]"`) {
		t.Fatalf("the moved object lost the agent's name for it:\n%s", out)
	}
	if code, out, errs := meta.cmd(t, dir, "", "plan", "-no-color", "-detailed-exitcode"); code != 0 {
		t.Fatalf("plan after the moves: %d\n%s\n%s", code, out, errs)
	}

	// A moved object that also changes says where it moved from.
	os.WriteFile(filepath.Join(dir, "main.rdma.hcl"), []byte(strings.Replace(renamed, `endpoint "clients"`, `endpoint "c"`, 1)+
		"moved {\n  from = endpoint.clients[1]\n  to   = endpoint.c[1]\n}\n"), 0o644)
	// Only c[1] moves: c[0] is new and clients[0] goes.
	code, out, _ = meta.cmd(t, dir, "", "plan", "-no-color")
	if code != 0 || !strings.Contains(out, "# endpoint.clients[1] has moved to endpoint.c[1]") || !strings.Contains(out, "# endpoint.c[0] will be created") ||
		!strings.Contains(out, "# endpoint.clients[0] will be destroyed") {
		t.Fatalf("plan of an instance move: %d\n%s", code, out)
	}

	if code, out, errs := meta.cmd(t, dir, "", "destroy", "-auto-approve"); code != 0 || len(f.live) != 0 {
		t.Fatalf("destroy after the moves: %d (left %v)\n%s\n%s", code, f.live, out, errs)
	}
}

func TestMovedObjectThatStillExistsIsAnError(t *testing.T) {
	meta := withFabric(t, newMemFabric())
	dir := planDir(t, planTestConfig+"moved {\n  from = listener.loop\n  to   = listener.other\n}\n")
	if code, _, errs := meta.cmd(t, dir, "", "validate", "-no-color"); code != 1 || !strings.Contains(errs, "Moved object still exists") {
		t.Fatalf("validate: %d\n%s", code, errs)
	}
}

// The state records dependencies on blocks (protection_domain.rxe for
// protection_domain.rxe[0]): moving a counted block rewrites them, so that
// destroy still removes what uses it first.
func TestMovingACountedBlockRewritesDependencies(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	counted := strings.Replace(strings.ReplaceAll(planTestConfig, "protection_domain.rxe.id", "protection_domain.rxe[0].id"), `protection_domain "rxe" {`, "protection_domain \"rxe\" {\n  count = 1", 1)
	dir := planDir(t, counted)
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve"); code != 0 {
		t.Fatalf("apply: %d\n%s\n%s", code, out, errs)
	}
	renamed := strings.NewReplacer(`protection_domain "rxe"`, `protection_domain "r2"`, "protection_domain.rxe[0]", "protection_domain.r2[0]").Replace(counted) +
		"moved {\n  from = protection_domain.rxe\n  to   = protection_domain.r2\n}\n"
	os.WriteFile(filepath.Join(dir, "main.rdma.hcl"), []byte(renamed), 0o644)
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color"); code != 0 || !strings.Contains(out, "Resources: 0 added, 0 changed, 0 destroyed.") {
		t.Fatalf("apply of the move: %d\n%s\n%s", code, out, errs)
	}
	_, pulled, _ := meta.cmd(t, dir, "", "state", "pull")
	// (The agent keeps its name, protection_domain.rxe[0], as the pd values say.)
	if strings.Contains(pulled, `"protection_domain.rxe"`) || !strings.Contains(pulled, `"protection_domain.r2"`) {
		t.Fatalf("the state still names the old block, or lost the dependency:\n%s", pulled)
	}
}

// A removed block with lifecycle { destroy = false } forgets objects: the
// state drops them, the fabric keeps them; with destroy = true they are
// destroyed as if simply left out.
func TestRemovedBlocksForgetOrDestroy(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	dir := planDir(t, planTestConfig)
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve"); code != 0 {
		t.Fatalf("apply: %d\n%s\n%s", code, out, errs)
	}
	i := strings.Index(planTestConfig, `endpoint "client"`)
	j := strings.Index(planTestConfig, `output "port"`)
	without := planTestConfig[:i] + planTestConfig[j:]
	os.WriteFile(filepath.Join(dir, "main.rdma.hcl"), []byte(without+"removed {\n  from = endpoint.client\n  lifecycle {\n    destroy = false\n  }\n}\n"), 0o644)
	code, out, errs := meta.cmd(t, dir, "", "plan", "-no-color", "-detailed-exitcode")
	if code != 2 || !strings.Contains(out, "# endpoint.client[1] will no longer be managed by rdmaform") ||
		!strings.Contains(out, "Plan: 0 to add, 0 to change, 0 to destroy, 2 to forget.") || !strings.Contains(errs, "Warning: Some objects will no longer be managed by rdmaform") {
		t.Fatalf("plan of a forget: %d\n%s\n%s", code, out, errs)
	}
	if code, out, _ := planDocument(t, meta, dir); code != 0 || strings.Count(out, `"actions":["forget"]`) != 2 {
		t.Fatalf("plan -json of a forget: %d\n%s", code, out)
	}
	code, out, errs = meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color")
	if code != 0 || !strings.Contains(out, "Apply complete! Resources: 0 added, 0 changed, 0 destroyed, 2 forgotten.") || len(f.live) != 4 || stateObjects(t, dir) != 2 {
		t.Fatalf("apply of a forget: %d (live %v, %d in the state)\n%s\n%s", code, f.live, stateObjects(t, dir), out, errs)
	}
	if code, out, errs := meta.cmd(t, dir, "", "plan", "-detailed-exitcode"); code != 0 {
		t.Fatalf("plan after the forget: %d\n%s\n%s", code, out, errs)
	}

	f2 := newMemFabric()
	meta = withFabric(t, f2)
	dir = planDir(t, planTestConfig)
	meta.cmd(t, dir, "", "apply", "-auto-approve")
	os.WriteFile(filepath.Join(dir, "main.rdma.hcl"), []byte(without+"removed {\n  from = endpoint.client[0]\n  lifecycle {\n    destroy = true\n  }\n}\n"), 0o644)
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color"); code != 0 || !strings.Contains(out, "0 added, 0 changed, 2 destroyed.") || len(f2.live) != 2 {
		t.Fatalf("apply of a removed block that destroys: %d (live %v)\n%s\n%s", code, f2.live, out, errs)
	}
}

func TestTargetedPlanMustCoverMoves(t *testing.T) {
	meta := withFabric(t, newMemFabric())
	dir := planDir(t, planTestConfig)
	meta.cmd(t, dir, "", "apply", "-auto-approve")
	renamed := strings.Replace(planTestConfig, `endpoint "client"`, `endpoint "clients"`, 1) + "moved {\n  from = endpoint.client\n  to   = endpoint.clients\n}\n"
	os.WriteFile(filepath.Join(dir, "main.rdma.hcl"), []byte(renamed), 0o644)
	code, _, errs := meta.cmd(t, dir, "", "plan", "-no-color", "-target=listener.loop")
	if code != 1 || !strings.Contains(errs, "Moved objects excluded by targeting") || !strings.Contains(errs, `-target="endpoint.clients[1]"`) {
		t.Fatalf("a targeted plan leaving moves out: %d\n%s", code, errs)
	}
	if code, out, errs := meta.cmd(t, dir, "", "plan", "-no-color", "-target=endpoint.clients"); code != 0 {
		t.Fatalf("a targeted plan covering the moves: %d\n%s\n%s", code, out, errs)
	}
}

// Adding count to a block, or taking it away, moves its object between
// listener.loop and listener.loop[0] as Terraform's implied moves do,
// rather than replacing it (which would drop its connections).
func TestAddingOrRemovingCountMovesTheObject(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	dir := planDir(t, planTestConfig)
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve"); code != 0 {
		t.Fatalf("apply: %d\n%s\n%s", code, out, errs)
	}
	created := f.qp
	counted := strings.NewReplacer("listener \"loop\" {\n", "listener \"loop\" {\n  count   = 1\n", "listener.loop.", "listener.loop[0].").Replace(planTestConfig)
	os.WriteFile(filepath.Join(dir, "main.rdma.hcl"), []byte(counted), 0o644)
	code, out, errs := meta.cmd(t, dir, "", "plan", "-no-color", "-detailed-exitcode")
	if code != 2 || !strings.Contains(out, "# listener.loop has moved to listener.loop[0]") ||
		!strings.Contains(out, "Plan: 0 to add, 0 to change, 0 to destroy.") || strings.Contains(out, "will be") {
		t.Fatalf("plan after adding count: %d\n%s\n%s", code, out, errs)
	}
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color"); code != 0 || !strings.Contains(out, "0 added, 0 changed, 0 destroyed") {
		t.Fatalf("apply after adding count: %d\n%s\n%s", code, out, errs)
	}
	if code, _, _ := meta.cmd(t, dir, "", "plan", "-detailed-exitcode"); code != 0 || f.qp != created {
		t.Fatalf("after the implied move: plan exit %d, %d objects made", code, f.qp-created)
	}

	// Back to a single object; a moved block, when there is one, wins.
	os.WriteFile(filepath.Join(dir, "main.rdma.hcl"), []byte(planTestConfig), 0o644)
	code, out, errs = meta.cmd(t, dir, "", "plan", "-no-color", "-detailed-exitcode")
	if code != 2 || !strings.Contains(out, "# listener.loop[0] has moved to listener.loop") || strings.Contains(out, "will be") {
		t.Fatalf("plan after removing count: %d\n%s\n%s", code, out, errs)
	}
	os.WriteFile(filepath.Join(dir, "main.rdma.hcl"), []byte(strings.NewReplacer(`listener "loop"`, `listener "main"`, "listener.loop", "listener.main").Replace(planTestConfig)+
		"moved {\n  from = listener.loop[0]\n  to   = listener.main\n}\n"), 0o644)
	code, out, errs = meta.cmd(t, dir, "", "plan", "-no-color", "-detailed-exitcode")
	if code != 2 || !strings.Contains(out, "# listener.loop[0] has moved to listener.main") || strings.Contains(out, "will be") {
		t.Fatalf("plan with a moved block: %d\n%s\n%s", code, out, errs)
	}
}

// A new object at the address a moved block moved another from is made
// under another agent name: the moved object keeps holding the first one.
func TestNewObjectAtAMovedFromAddress(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	const listener = `
listener "l" {
  address = "10.77.0.1"
  port    = 7471
}
`
	endpoint := func(name string) string {
		return "endpoint \"" + name + "\" {\n  address = listener.l.address\n  port    = listener.l.port\n}\n"
	}
	dir := planDir(t, listener+endpoint("client"))
	apply := func(what string) {
		t.Helper()
		if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color"); code != 0 {
			t.Fatalf("%s: %d\n%s\n%s", what, code, out, errs)
		}
	}
	apply("apply")
	writeConfig(t, dir, listener+endpoint("worker")+"moved {\n  from = endpoint.client\n  to   = endpoint.worker\n}\n")
	apply("apply of the move")
	writeConfig(t, dir, listener+endpoint("worker")+endpoint("client"))
	apply("apply of a new endpoint.client")
	names := liveNames(f)
	if len(names) != 3 || names[0] != "endpoint.client" || !strings.HasPrefix(names[1], "endpoint.client#") {
		t.Fatalf("the agent holds %v: want the moved endpoint.client and a new endpoint.client#...", names)
	}
	if code, out, errs := meta.cmd(t, dir, "", "plan", "-detailed-exitcode", "-no-color"); code != 0 {
		t.Fatalf("plan after: %d\n%s\n%s", code, out, errs)
	}
	// Each is destroyed under its own name.
	writeConfig(t, dir, listener+endpoint("worker"))
	apply("apply without endpoint.client")
	if names := liveNames(f); strings.Join(names, " ") != "endpoint.client listener.l" {
		t.Fatalf("after endpoint.client left the configuration the agent holds %v: want endpoint.worker's endpoint.client", names)
	}
}

// state mv keeps the name the agent holds the object by, as a moved block
// does: the next plan finds it at its new address.
func TestStateMvKeepsTheAgentName(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	dir := planDir(t, "listener \"l\" {\n  address = \"10.77.0.1\"\n  port    = 7471\n}\n")
	if code, _, errs := meta.cmd(t, dir, "", "apply", "-auto-approve"); code != 0 {
		t.Fatal(errs)
	}
	if code, _, errs := meta.cmd(t, dir, "", "state", "mv", "listener.l", "listener.m"); code != 0 {
		t.Fatal(errs)
	}
	writeConfig(t, dir, "listener \"m\" {\n  address = \"10.77.0.1\"\n  port    = 7471\n}\n")
	if code, out, errs := meta.cmd(t, dir, "", "plan", "-detailed-exitcode", "-no-color"); code != 0 {
		t.Fatalf("plan after state mv: %d\n%s\n%s", code, out, errs)
	}
}

// import, and an import block at plan, refuse an agent object the state
// holds already under another address (moved there): one connection would
// be managed twice.
func TestImportRefusesAnObjectTheStateHolds(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	const listener = "listener \"l\" {\n  address = \"10.77.0.1\"\n  port    = 7471\n}\n"
	dir := planDir(t, listener)
	if code, _, errs := meta.cmd(t, dir, "", "apply", "-auto-approve"); code != 0 {
		t.Fatal(errs)
	}
	if code, _, errs := meta.cmd(t, dir, "", "state", "mv", "listener.l", "listener.m"); code != 0 {
		t.Fatal(errs)
	}
	both := listener + strings.ReplaceAll(strings.ReplaceAll(listener, `"l"`, `"m"`), "7471", "7472")
	writeConfig(t, dir, both)
	code, _, errs := meta.cmd(t, dir, "", "import", "listener.l")
	if code != 1 || !strings.Contains(errs, "The agent's listener.l is in the state already, as listener.m") {
		t.Fatalf("import of an object the state holds as listener.m: %d\n%s", code, errs)
	}
	writeConfig(t, dir, both+"import {\n  to = listener.l\n}\n")
	code, _, errs = meta.cmd(t, dir, "", "plan", "-no-color")
	if code != 1 || !strings.Contains(errs, "Object already managed by rdmaform") || !strings.Contains(errs, "the agent's listener.l, which the state holds already, as listener.m") {
		t.Fatalf("plan importing an object the state holds as listener.m: %d\n%s", code, errs)
	}
}
