package command

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/state"
	"github.com/rdmaform/rdmaform/state/etcdtest"
)

func writeConfig(t *testing.T, dir, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "main.rdma.hcl"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestInitRecordsBackend(t *testing.T) {
	dir := stateDir(t, "")
	code, out, errs := stateCmd(t, dir, "", "init")
	if code != 0 || !strings.Contains(out, "rdmaform has been successfully initialized!") || !strings.Contains(out, "local (rdmaform.rdmastate)") {
		t.Fatalf("init: %d %s %s", code, out, errs)
	}
	rec, err := os.ReadFile(filepath.Join(dir, ".rdmaform", "backend.json"))
	if err != nil || !strings.Contains(string(rec), `"type": "local"`) {
		t.Fatalf("backend record: %v %s", err, rec)
	}
	if code, _, errs := stateCmd(t, dir, "", "init"); code != 0 {
		t.Fatalf("second init: %s", errs)
	}
	writeConfig(t, dir, "rdmaform {\n  backend \"nosuch\" {}\n}\n")
	code, _, errs = stateCmd(t, dir, "", "init")
	if code != 1 || !strings.Contains(errs, "main.rdma.hcl") {
		t.Fatalf("init with a bad backend block: %d %s", code, errs)
	}
}

// As Terraform's: init in a directory without configuration files says
// so, succeeds, and records no backend.
func TestInitInAnEmptyDirectory(t *testing.T) {
	dir := stateDir(t, "")
	os.Remove(filepath.Join(dir, "main.rdma.hcl"))
	code, out, errs := stateCmd(t, dir, "", "init")
	if code != 0 || !strings.Contains(out, "initialized in an empty directory") || strings.Contains(out, "Initializing the backend") {
		t.Fatalf("init: %d %s %s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, ".rdmaform")); !os.IsNotExist(err) {
		t.Fatalf("init in an empty directory made .rdmaform: %v", err)
	}
}

func TestInitMigrateLocalToLocal(t *testing.T) {
	dir := stateDir(t, testState)
	if code, _, errs := stateCmd(t, dir, "", "init"); code != 0 {
		t.Fatal(errs)
	}
	writeConfig(t, dir, "rdmaform {\n  backend \"local\" {\n    path = \"moved.rdmastate\"\n  }\n}\n")
	code, _, errs := stateCmd(t, dir, "", "state", "list")
	if code != 1 || !strings.Contains(errs, "Backend initialization required") || !strings.Contains(errs, "init -migrate-state") {
		t.Fatalf("state list after a backend change: %d %s", code, errs)
	}
	code, _, errs = stateCmd(t, dir, "", "init")
	if code != 1 || !strings.Contains(errs, "Backend configuration changed") {
		t.Fatalf("init after a backend change: %d %s", code, errs)
	}
	code, out, errs := stateCmd(t, dir, "", "init", "-migrate-state")
	if code != 0 || !strings.Contains(out, "Successfully migrated the state (lineage "+testLineage+", serial 3, 4 objects)") {
		t.Fatalf("init -migrate-state: %d %s %s", code, out, errs)
	}
	_, out, _ = stateCmd(t, dir, "", "state", "list")
	if !strings.Contains(out, "endpoint.client[10]") {
		t.Fatalf("state list after migration: %q", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "moved.rdmastate")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "rdmaform.rdmastate")); err != nil {
		t.Fatal("the old state was removed")
	}
}

func TestInitMigrateLocalToEtcdAndBack(t *testing.T) {
	ep := etcdtest.Start(t)
	dir := stateDir(t, testState)
	// No init yet: state kept before a backend block was added is the
	// default local file.
	writeConfig(t, dir, "rdmaform {\n  backend \"etcd\" {\n    endpoints = [\""+ep+"\"]\n    prefix = \"/cmdtest\"\n  }\n}\n")
	code, out, errs := stateCmd(t, dir, "", "init", "-migrate-state")
	if code != 0 || !strings.Contains(out, "Successfully migrated") || !strings.Contains(out, "to etcd") {
		t.Fatalf("init -migrate-state to etcd: %d %s %s", code, out, errs)
	}
	os.Remove(filepath.Join(dir, "rdmaform.rdmastate"))
	code, _, errs = stateCmd(t, dir, "", "state", "rm", "endpoint.client[10]")
	if code != 0 {
		t.Fatalf("state rm on etcd: %d %s", code, errs)
	}
	_, out, _ = stateCmd(t, dir, "", "state", "pull")
	if !strings.Contains(out, `"serial": 4`) || strings.Contains(out, "client[10]") || !strings.Contains(out, testLineage) {
		t.Fatalf("state pull from etcd:\n%s", out)
	}
	_, out, _ = stateCmd(t, dir, "", "output", "addr")
	if out != "\"10.0.0.1\"\n" {
		t.Fatalf("output from etcd: %q", out)
	}

	// Back to a local file that already holds a different state: refused
	// unless -force-copy.
	other := strings.Replace(testState, testLineage, "11111111-2222-3333-4444-555555555555", 1)
	os.WriteFile(filepath.Join(dir, "rdmaform.rdmastate"), []byte(other), 0o600)
	writeConfig(t, dir, "rdmaform {}\n")
	code, _, errs = stateCmd(t, dir, "", "init", "-migrate-state")
	if code != 1 || !strings.Contains(errs, "The new backend already has a state") {
		t.Fatalf("migration over a different state: %d %s", code, errs)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "rdmaform.rdmastate")); string(b) != other {
		t.Fatal("a refused migration changed the destination")
	}
	code, out, errs = stateCmd(t, dir, "", "init", "-migrate-state", "-force-copy")
	if code != 0 {
		t.Fatalf("init -migrate-state -force-copy: %d %s %s", code, out, errs)
	}
	_, out, _ = stateCmd(t, dir, "", "state", "pull")
	if !strings.Contains(out, testLineage) || strings.Contains(out, "client[10]") {
		t.Fatalf("after migrating back:\n%s", out)
	}
}

// init -backend=false (CI, before validate) reads no backend: a backend
// block naming an unreachable etcd does not matter.
func TestInitWithoutBackend(t *testing.T) {
	dir := planDir(t, planTestConfig+`
rdmaform {
  backend "etcd" {
    endpoints = ["127.0.0.1:1"]
  }
}
`)
	code, out, errs := stateCmd(t, dir, "", "init", "-backend=false")
	if code != 0 || !strings.Contains(out, "successfully initialized") {
		t.Errorf("init -backend=false: %d %q %q", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, ".rdmaform", "backend.json")); err == nil {
		t.Error("init -backend=false recorded a backend")
	}
}

// A backend block added to a directory whose state init never set up is
// refused until init, as Terraform's: a plan would otherwise read another
// (empty) state and plan every object again.
func TestBackendBlockWithoutInitIsRefused(t *testing.T) {
	meta := withFabric(t, newMemFabric()) // plan connects while the state opens: no real agent in a test
	dir := stateDir(t, testState)
	writeConfig(t, dir, "rdmaform {\n  backend \"local\" {\n    path = \"elsewhere.rdmastate\"\n  }\n}\n")
	for _, args := range [][]string{{"plan"}, {"state", "list"}, {"output"}} {
		code, out, errs := meta.cmd(t, dir, "", args...)
		if code != 1 || !strings.Contains(errs, `Backend initialization required, please run "rdmaform init"`) || !strings.Contains(errs, "local (elsewhere.rdmastate)") {
			t.Errorf("%s: %d\n%s%s", strings.Join(args, " "), code, out, errs)
		}
	}
	if code, out, errs := meta.cmd(t, dir, "", "init", "-migrate-state", "-force-copy"); code != 0 {
		t.Fatalf("init -migrate-state: %d\n%s%s", code, out, errs)
	}
	if code, out, errs := meta.cmd(t, dir, "", "state", "list"); code != 0 || !strings.Contains(out, "endpoint.client[10]") {
		t.Errorf("state list after init: %d\n%s%s", code, out, errs)
	}
}

// init -migrate-state moves every workspace, as Terraform's: a workspace
// of the local backend is in etcd afterwards, with its state, and back.
func TestInitMigratesEveryWorkspace(t *testing.T) {
	ep := etcdtest.Start(t)
	dir := stateDir(t, testState)
	if code, _, errs := stateCmd(t, dir, "", "workspace", "new", "staging"); code != 0 {
		t.Fatalf("workspace new: %s", errs)
	}
	staging := strings.Replace(plannableState, testLineage, "11111111-2222-3333-4444-555555555555", 1)
	os.WriteFile(filepath.Join(dir, "staging.json"), []byte(staging), 0o600)
	if code, _, errs := stateCmd(t, dir, "", "state", "push", "staging.json"); code != 0 {
		t.Fatalf("state push in staging: %s", errs)
	}
	if code, _, errs := stateCmd(t, dir, "", "workspace", "select", "default"); code != 0 {
		t.Fatalf("workspace select: %s", errs)
	}
	writeConfig(t, dir, "rdmaform {\n  backend \"etcd\" {\n    endpoints = [\""+ep+"\"]\n    prefix = \"/wsmig\"\n  }\n}\n")
	code, out, errs := stateCmd(t, dir, "", "init", "-migrate-state")
	if code != 0 || !strings.Contains(out, `Successfully migrated the state of workspace "staging"`) {
		t.Fatalf("init -migrate-state: %d\n%s\n%s", code, out, errs)
	}
	if _, out, _ := stateCmd(t, dir, "", "workspace", "list"); !strings.Contains(out, "staging") {
		t.Fatalf("workspace list on etcd: %q", out)
	}
	if code, _, errs := stateCmd(t, dir, "", "workspace", "select", "staging"); code != 0 {
		t.Fatalf("workspace select staging on etcd: %s", errs)
	}
	if _, out, _ := stateCmd(t, dir, "", "state", "pull"); !strings.Contains(out, "11111111-2222-3333-4444-555555555555") {
		t.Fatalf("staging's state on etcd:\n%s", out)
	}
}

// An apply whose etcd lock is lost while it runs (force-unlock by another
// operator, or a lease that expired) says so and starts nothing more,
// rather than go on changing what the state no longer guards.
func TestApplyStopsWhenItsLockIsLost(t *testing.T) {
	ep := etcdtest.Start(t)
	f := newMemFabric()
	meta := withFabric(t, f)
	dir := planDir(t, "rdmaform {\n  backend \"etcd\" {\n    endpoints = [\""+ep+"\"]\n    prefix    = \"/lost\"\n  }\n}\n"+planTestConfig)
	if code, _, errs := meta.cmd(t, dir, "", "init"); code != 0 {
		t.Fatal(errs)
	}
	other, err := state.NewEtcd(context.Background(), state.EtcdOptions{Endpoints: []string{ep}, Prefix: "/lost"})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	var once sync.Once
	f.beforeCreate = func(name string) {
		if name != "listener.loop" {
			return
		}
		once.Do(func() { // another operator breaks the lock while the listener is made
			li, err := other.LockHolder()
			if err != nil || li == nil {
				t.Errorf("no lock held during apply: %v", err)
				return
			}
			if err := other.ForceUnlock(li.ID); err != nil {
				t.Error(err)
			}
			time.Sleep(2 * time.Second) // the holder's session notices
		})
	}
	code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color", "-parallelism=1")
	if code != 1 || !strings.Contains(errs, "Error: Lost the state lock") || !strings.Contains(errs, "Stopped: this run lost the state lock") {
		t.Fatalf("apply that lost its lock: %d\n%s\n%s", code, out, errs)
	}
	if _, ok := f.live["endpoint.client[1]"]; ok {
		t.Errorf("apply went on after losing its lock: %v", f.live)
	}
	// etcd refused its records once the lock was gone, and apply says what
	// that leaves, not that they are in the journal.
	if !strings.Contains(errs, "lost the state lock") || !strings.Contains(errs, `run "rdmaform plan"`) || strings.Contains(errs, "in the state's journal") {
		t.Errorf("apply that lost its lock does not say its records were refused:\n%s", errs)
	}
}

// Partial configuration of the local backend, as Terraform's: an empty
// block completed by init's -backend-config, whose value later commands
// use as init recorded it; init again without -backend-config keeps it,
// and another value is a change of backend.
func TestInitBackendConfigLocal(t *testing.T) {
	dir := stateDir(t, "")
	os.WriteFile(filepath.Join(dir, "moved.rdmastate"), []byte(testState), 0o600)
	writeConfig(t, dir, "rdmaform {\n  backend \"local\" {}\n}\n")
	code, out, errs := stateCmd(t, dir, "", "init", "-backend-config=path=moved.rdmastate")
	if code != 0 || !strings.Contains(out, "Using the local (moved.rdmastate) backend") {
		t.Fatalf("init -backend-config: %d\n%s%s", code, out, errs)
	}
	if code, out, errs := stateCmd(t, dir, "", "state", "list"); code != 0 || !strings.Contains(out, "endpoint.client[10]") {
		t.Fatalf("state list with the recorded path: %d\n%s%s", code, out, errs)
	}
	if code, out, errs := stateCmd(t, dir, "", "init"); code != 0 || !strings.Contains(out, "local (moved.rdmastate)") {
		t.Fatalf("init again without -backend-config: %d\n%s%s", code, out, errs)
	}
	code, out, errs = stateCmd(t, dir, "", "init", "-backend-config=path=other.rdmastate")
	if code != 1 || !strings.Contains(errs, "changed from local (moved.rdmastate) to local (other.rdmastate)") {
		t.Fatalf("init with another path: %d\n%s%s", code, out, errs)
	}
	// The recorded path is not an argument of another type of backend:
	// the block changed, and init is needed.
	writeConfig(t, dir, "rdmaform {\n  backend \"etcd\" {\n    endpoints = [\"http://127.0.0.1:1\"]\n  }\n}\n")
	code, out, errs = stateCmd(t, dir, "", "state", "list")
	if code != 1 || !strings.Contains(errs, "Backend initialization required") || strings.Contains(errs, "Invalid backend configuration argument") {
		t.Fatalf("state list after the block changed type: %d\n%s%s", code, out, errs)
	}
}

// init's -backend-config errors: an argument the backend does not have
// (named, with what it may have meant), a file's error with its
// file:line:col, and -backend-config without a backend block.
func TestInitBackendConfigErrors(t *testing.T) {
	dir := stateDir(t, "")
	writeConfig(t, dir, "rdmaform {\n  backend \"etcd\" {}\n}\n")
	code, out, errs := stateCmd(t, dir, "", "init", "-backend-config=endpoint=http://127.0.0.1:1")
	if code != 1 || !strings.Contains(errs, `argument "endpoint" given to init's -backend-config`) || !strings.Contains(errs, `Did you mean "endpoints"?`) {
		t.Errorf("unknown key: %d\n%s%s", code, out, errs)
	}
	os.WriteFile(filepath.Join(dir, "etcd.hcl"), []byte("prefix = \"p\"\ndial_timeout = \"2 days\"\n"), 0o600)
	code, out, errs = stateCmd(t, dir, "", "init", "-backend-config=etcd.hcl", `-backend-config=endpoints=["http://127.0.0.1:1"]`)
	if code != 1 || !strings.Contains(errs, "Invalid duration") || !strings.Contains(errs, "etcd.hcl:2:16") {
		t.Errorf("error in a -backend-config file: %d\n%s%s", code, out, errs)
	}
	code, out, errs = stateCmd(t, dir, "", "init")
	if code != 1 || !strings.Contains(errs, "No etcd endpoints") || !strings.Contains(errs, "main.rdma.hcl:2:3") {
		t.Errorf("an empty etcd block without -backend-config: %d\n%s%s", code, out, errs)
	}
	writeConfig(t, dir, "rdmaform {}\n")
	code, out, errs = stateCmd(t, dir, "", "init", "-backend-config=path=x.rdmastate")
	if code != 1 || !strings.Contains(errs, "Missing backend configuration") {
		t.Errorf("-backend-config without a backend block: %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, ".rdmaform", "backend.json")); err == nil {
		t.Error("a failed init recorded a backend")
	}
}

// backend.json holds no password: init keeps it in backend-secrets.json
// (0600) and reads it back; messages about a changed backend name the
// changed settings without their values; a record whose secrets file is
// gone is refused without showing anything of it.
func TestBackendRecordKeepsThePasswordApart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	b := &backendConfig{Type: "etcd", Endpoints: []string{"http://e:2379"}, Prefix: "p", Username: "ops", Password: "s3cret-pw"}
	over := config.OverrideAttrs(map[string]any{"prefix": "p", "password": "s3cret-pw"}, "test")
	if err := writeBackendRecord(dir, b, over); err != nil {
		t.Fatal(err)
	}
	rec, _ := os.ReadFile(filepath.Join(dir, ".rdmaform", "backend.json"))
	if strings.Contains(string(rec), "s3cret-pw") || !strings.Contains(string(rec), `"password_set": true`) || !strings.Contains(string(rec), `"backend_config_secrets": [`) {
		t.Errorf("backend.json:\n%s", rec)
	}
	sp := filepath.Join(dir, ".rdmaform", "backend-secrets.json")
	if fi, err := os.Stat(sp); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("backend-secrets.json: %v %v", fi, err)
	}
	r, err := readBackendRecord(dir)
	if err != nil || !r.Backend.equal(b) || r.Backend.Password != "s3cret-pw" {
		t.Fatalf("read back: %+v %v", r, err)
	}
	if pw := r.overrides()["password"]; pw == nil {
		t.Error("the -backend-config password is not among the recorded overrides")
	}
	other := *b
	other.Password = "an0ther-pw"
	if b.equal(&other) || strings.Join(b.changes(&other), ",") != "password" {
		t.Errorf("a changed password: equal %v, changes %v", b.equal(&other), b.changes(&other))
	}
	if msg := describeChange(b, &other); strings.Contains(msg, "pw") || !strings.Contains(msg, "(changed: password)") {
		t.Errorf("describeChange = %q", msg)
	}
	if s := fmt.Sprintf("%v %s", b, b); strings.Contains(s, "s3cret") {
		t.Errorf("String shows the password: %s", s)
	}
	// Without a password, no secrets file is left behind.
	b.Password = ""
	if err := writeBackendRecord(dir, b, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(sp); !os.IsNotExist(err) {
		t.Errorf("backend-secrets.json left after a record without a password: %v", err)
	}
	b.Password = "s3cret-pw"
	writeBackendRecord(dir, b, nil)
	os.WriteFile(sp, []byte(`{"password": s3cret-pw`), 0o600)
	if _, err := readBackendRecord(dir); err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "init -reconfigure") {
		t.Errorf("a damaged secrets file: %v", err)
	}
}

// A backend given by -backend-config (the block empty) and left later,
// its block removed, takes the state back to a local file with init
// -migrate-state, as one written in the block does: the values init
// recorded went with the block they completed.
func TestInitMigrateBackFromABackendConfigGivenToInit(t *testing.T) {
	ep := etcdtest.Start(t)
	dir := stateDir(t, testState)
	writeConfig(t, dir, "rdmaform {\n  backend \"etcd\" {}\n}\n")
	code, out, errs := stateCmd(t, dir, "", "init", "-migrate-state", "-backend-config=endpoints=[\""+ep+"\"]", "-backend-config=prefix=/partial")
	if code != 0 || !strings.Contains(out, "Successfully migrated") {
		t.Fatalf("init -migrate-state to etcd: %d %s %s", code, out, errs)
	}
	os.Remove(filepath.Join(dir, "rdmaform.rdmastate"))
	if code, _, errs := stateCmd(t, dir, "", "state", "rm", "endpoint.client[10]"); code != 0 {
		t.Fatalf("state rm on etcd: %d %s", code, errs)
	}
	writeConfig(t, dir, "rdmaform {}\n")
	code, out, errs = stateCmd(t, dir, "", "init", "-migrate-state")
	if code != 0 || !strings.Contains(out, "Successfully migrated") || !strings.Contains(out, "local (rdmaform.rdmastate)") {
		t.Fatalf("init -migrate-state back to local: %d %s %s", code, out, errs)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, backendDir, backendFile)); strings.Contains(string(data), "partial") {
		t.Errorf("the etcd backend's recorded values outlive it:\n%s", data)
	}
	_, out, _ = stateCmd(t, dir, "", "state", "list")
	if !strings.Contains(out, "endpoint.") || strings.Contains(out, "client[10]") {
		t.Fatalf("state list after migrating back (the change made in etcd should be there):\n%s", out)
	}
}
