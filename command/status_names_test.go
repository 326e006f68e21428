package command

import (
	"testing"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/state"
)

// Objects the agent holds under names other than their addresses (moved,
// replaced under a # suffix, in a namespace, deposed) are shown under
// their addresses, their namespace kept; the others keep the agent's names.
func TestNamesOfShowStateAddresses(t *testing.T) {
	t.Parallel()
	st := state.New()
	add := func(addr, handle string, deposed string) {
		a, err := addrs.ParseInstance(addr)
		if err != nil {
			t.Fatal(err)
		}
		o := &state.Object{Addr: a, Facts: state.Facts{AgentHandle: handle}}
		if deposed != "" {
			o.Facts.Deposed = &state.DeposedObject{AgentHandle: deposed}
		}
		st.Objects[addr] = o
	}
	add("endpoint.clients[0]", "endpoint.client[0]", "")   // moved
	add("listener.l", "listener.l#1a2b3c4d", "listener.l") // create_before_destroy, old not yet destroyed
	add("endpoint.b", "endpoint.a@storage", "")            // moved, in a namespace
	add("endpoint.n", "endpoint.n@storage#9f8e7d6c", "")   // replaced, in a namespace
	add(`endpoint.k["x@y#z"]`, `endpoint.k["x@y#z"]`, "")  // odd key, its own name
	add("endpoint.same", "", "")                           // the agent's name is its address
	names := namesOf(st)
	for held, want := range map[string]string{
		"endpoint.client[0]":          "endpoint.clients[0]",
		"listener.l#1a2b3c4d":         "listener.l",
		"listener.l":                  "listener.l (deposed)",
		"listener.l#1a2b3c4d/conn/7":  "listener.l/conn/7",
		"endpoint.a@storage":          "endpoint.b@storage",
		"endpoint.n@storage#9f8e7d6c": "endpoint.n@storage",
		`endpoint.k["x@y#z"]`:         `endpoint.k["x@y#z"]`,
		"endpoint.same":               "endpoint.same",
		"endpoint.other@elsewhere":    "endpoint.other@elsewhere",
		"listener.other/conn/3":       "listener.other/conn/3",
	} {
		if got := names.Of(held); got != want {
			t.Errorf("%s is shown as %q, want %q", held, got, want)
		}
	}
	if len(names) != 5 {
		t.Errorf("names map %d agent names, want 5 (those that differ): %v", len(names), names)
	}

	conn := &pb.Object{Address: "listener.l#1a2b3c4d/conn/7", Parent: "listener.l#1a2b3c4d", Kind: pb.Kind_CONNECTION}
	shown := names.Shown(conn)
	if shown.Address != "listener.l/conn/7" || shown.Parent != "listener.l" {
		t.Errorf("connection shown as %s (parent %s)", shown.Address, shown.Parent)
	}
	if conn.Address != "listener.l#1a2b3c4d/conn/7" {
		t.Errorf("Shown changed the agent's object: %s", conn.Address)
	}
	if o := (&pb.Object{Address: "endpoint.same"}); names.Shown(o) != o {
		t.Error("an object shown under the agent's name was copied")
	}
}

// Status and the monitor, in one workspace, show another workspace's
// objects the agent holds under their addresses in that workspace's
// state, not under the names the agent made them with.
func TestWorkingDirNamesCoverEveryWorkspace(t *testing.T) {
	meta := withFabric(t, newMemFabric())
	dir := planDir(t, planTestConfig)
	for _, args := range [][]string{
		{"apply", "-auto-approve"},
		{"state", "mv", "endpoint.client[0]", "endpoint.moved[0]"},
		{"workspace", "new", "staging"},
	} {
		if code, out, errs := meta.cmd(t, dir, "", args...); code != 0 {
			t.Fatalf("%v: %d\n%s\n%s", args, code, out, errs)
		}
	}
	t.Chdir(dir)
	if ws := workspaceOrDefault("."); ws != "staging" {
		t.Fatalf("selected workspace %q, want staging", ws)
	}
	if got := workingDirNames().Of("endpoint.client[0]"); got != "endpoint.moved[0]" {
		t.Errorf("in workspace staging, default's moved object is shown as %q, want endpoint.moved[0]", got)
	}
}
