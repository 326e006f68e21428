package command

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/state"
	"github.com/rdmaform/rdmaform/state/etcdtest"
)

const workspaceTestConfig = `
listener "l" {
  address = "10.77.0.1"
  port    = rdmaform.workspace == "default" ? 7471 : 7500
}
output "where" {
  value = "${rdmaform.workspace}:${listener.l.port}"
}
`

func liveNames(f *memFabric) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var names []string
	for n := range f.live {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func workspaceState(t *testing.T, path string) *state.State {
	t.Helper()
	m := state.NewFilesystem(state.LocalOptions{Path: path})
	if err := m.RefreshState(); err != nil {
		t.Fatal(err)
	}
	return m.State()
}

// Each workspace has its own state and its own objects in the agent;
// rdmaform.workspace tells them apart in the configuration.
func TestWorkspacesKeepTheirOwnStateAndObjects(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	dir := planDir(t, workspaceTestConfig)
	cmd := func(want int, args ...string) string {
		t.Helper()
		code, out, errs := meta.cmd(t, dir, "", args...)
		if code != want {
			t.Fatalf("%s: exit %d, want %d\n%s\n%s", strings.Join(args, " "), code, want, out, errs)
		}
		return out + errs
	}
	cmd(0, "apply", "-auto-approve", "-no-color")
	out := cmd(0, "workspace", "new", "dev")
	if !strings.Contains(out, `Created and switched to workspace "dev"!`) {
		t.Errorf("workspace new: %s", out)
	}
	if out := cmd(0, "workspace", "show"); out != "dev\n" {
		t.Errorf("workspace show: %q", out)
	}
	if out := cmd(2, "plan", "-detailed-exitcode", "-no-color"); !strings.Contains(out, "Plan: 1 to add") || !strings.Contains(out, "7500") {
		t.Errorf("plan in a new workspace starts from no state:\n%s", out)
	}
	if out := cmd(0, "apply", "-auto-approve", "-no-color"); !strings.Contains(out, `where = "dev:7500"`) {
		t.Errorf("apply in dev:\n%s", out)
	}
	if got := liveNames(f); strings.Join(got, " ") != "listener.l listener.l@dev" {
		t.Errorf("the agent holds %v, want the default's listener.l and dev's listener.l@dev", got)
	}
	dev := workspaceState(t, filepath.Join(dir, "rdmaform.rdmastate.d", "dev", "rdmaform.rdmastate"))
	if dev == nil || len(dev.Objects) != 1 {
		t.Fatalf("dev's state: %+v", dev)
	}
	if out := cmd(0, "workspace", "list"); out != "  default\n* dev\n\n" {
		t.Errorf("workspace list:\n%q", out)
	}
	cmd(0, "plan", "-out=dev.plan")

	cmd(0, "workspace", "select", "default")
	cmd(0, "plan", "-detailed-exitcode")
	if out := cmd(1, "apply", "dev.plan"); !strings.Contains(out, `Saved plan is for another workspace`) {
		t.Errorf("a plan made in dev applied in default:\n%s", out)
	}
	if out := cmd(1, "workspace", "delete", "dev"); !strings.Contains(out, "Workspace is not empty") || !strings.Contains(out, "- listener.l") {
		t.Errorf("deleting a workspace that holds objects:\n%s", out)
	}
	t.Setenv(workspaceEnv, "dev")
	if out := cmd(0, "output", "-raw", "where"); out != "dev:7500" {
		t.Errorf("%s=dev: output %q", workspaceEnv, out)
	}
	if out := cmd(1, "workspace", "select", "default"); !strings.Contains(out, "overridden using the "+workspaceEnv) {
		t.Errorf("select under %s:\n%s", workspaceEnv, out)
	}
	cmd(0, "destroy", "-auto-approve")
	os.Unsetenv(workspaceEnv)
	cmd(0, "workspace", "delete", "dev")
	if _, err := os.Stat(filepath.Join(dir, "rdmaform.rdmastate.d", "dev")); !os.IsNotExist(err) {
		t.Errorf("dev's state directory is left: %v", err)
	}
	if got := liveNames(f); strings.Join(got, " ") != "listener.l" {
		t.Errorf("after dev's destroy the agent holds %v", got)
	}
	if stateObjects(t, dir) != 1 {
		t.Errorf("the default workspace's state changed")
	}
}

func TestWorkspaceRefusals(t *testing.T) {
	meta := withFabric(t, newMemFabric())
	dir := planDir(t, workspaceTestConfig)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"workspace", "new", "../x"}, "is not a valid workspace name"},
		{[]string{"workspace", "new", "default"}, `Workspace "default" already exists`},
		{[]string{"workspace", "delete", "default"}, "Can't delete the default workspace"},
		{[]string{"workspace", "delete", "nope"}, `Workspace "nope" doesn't exist.`},
		{[]string{"workspace", "select", "nope"}, `-or-create`},
		{[]string{"workspace", "new"}, "Expected a single argument: NAME"},
		{[]string{"workspace", "frob"}, "has no subcommand"},
	} {
		code, out, errs := meta.cmd(t, dir, "", c.args...)
		if code != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d\n%s%s\nwant %q", strings.Join(c.args, " "), code, out, errs, c.want)
		}
	}
	// A selected workspace whose state was removed by hand.
	if code, _, errs := meta.cmd(t, dir, "", "workspace", "new", "gone"); code != 0 {
		t.Fatal(errs)
	}
	os.RemoveAll(filepath.Join(dir, "rdmaform.rdmastate.d"))
	code, _, errs := meta.cmd(t, dir, "", "plan")
	if code != 1 || !strings.Contains(errs, `Currently selected workspace "gone" does not exist`) {
		t.Errorf("plan in a workspace that is gone: %d %s", code, errs)
	}
	if code, _, errs := meta.cmd(t, dir, "", "workspace", "select", "-or-create", "gone"); code != 0 {
		t.Errorf("select -or-create: %s", errs)
	}
}

// With the etcd backend, a workspace's state lives under PREFIX/env:/NAME/
// and the default's is untouched by it.
func TestWorkspacesOnEtcd(t *testing.T) {
	ep := etcdtest.Start(t)
	f := newMemFabric()
	meta := withFabric(t, f)
	dir := planDir(t, "rdmaform {\n  backend \"etcd\" {\n    endpoints = [\""+ep+"\"]\n    prefix    = \"/wstest\"\n  }\n}\n"+workspaceTestConfig)
	cmd := func(want int, args ...string) string {
		t.Helper()
		code, out, errs := meta.cmd(t, dir, "", args...)
		if code != want {
			t.Fatalf("%s: exit %d, want %d\n%s\n%s", strings.Join(args, " "), code, want, out, errs)
		}
		return out + errs
	}
	if out := cmd(1, "plan"); !strings.Contains(out, `Backend initialization required, please run "rdmaform init"`) {
		t.Errorf("plan with an etcd backend init has not set up:\n%s", out)
	}
	if out := cmd(1, "workspace", "list"); !strings.Contains(out, "Backend initialization required") {
		t.Errorf("workspace list with an etcd backend init has not set up:\n%s", out)
	}
	cmd(0, "init")
	cmd(0, "apply", "-auto-approve")
	cmd(0, "workspace", "new", "blue")
	cmd(0, "workspace", "new", "green")
	if out := cmd(0, "workspace", "list"); out != "  default\n  blue\n* green\n\n" {
		t.Errorf("workspace list:\n%q", out)
	}
	cmd(0, "apply", "-auto-approve")
	if out := cmd(0, "state", "list"); out != "listener.l\n" {
		t.Errorf("green's state list: %q", out)
	}
	if out := cmd(0, "output", "-raw", "where"); out != "green:7500" {
		t.Errorf("green's output: %q", out)
	}
	cmd(0, "workspace", "select", "blue")
	if out := cmd(1, "state", "list"); !strings.Contains(out, "No state file was found!") {
		t.Errorf("blue has no state yet: %q", out)
	}
	cmd(0, "workspace", "select", "default")
	if out := cmd(0, "output", "-raw", "where"); out != "default:7471" {
		t.Errorf("the default's output: %q", out)
	}
	cmd(1, "workspace", "delete", "green")
	if out := cmd(0, "workspace", "delete", "-force", "green"); !strings.Contains(out, "WARNING: \"green\" was non-empty.\nThe agent still holds the 1 object it managed") {
		t.Errorf("delete -force of a workspace with objects says nothing of them:\n%s", out)
	}
	if out := cmd(0, "workspace", "list"); out != "* default\n  blue\n\n" {
		t.Errorf("workspace list after deleting green:\n%q", out)
	}
	if got := liveNames(f); strings.Join(got, " ") != "listener.l listener.l@green" {
		t.Errorf("delete -force leaves the objects to the agent: it holds %v", got)
	}
}
