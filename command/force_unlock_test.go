package command

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestForceUnlockLocal(t *testing.T) {
	dir := stateDir(t, testState)
	// A holder that died left its lock info behind (its flock went with it).
	info := `{"ID":"dead-beef","Operation":"OperationTypeApply","Who":"ann@h1","PID":4242,"Host":"h1","Path":"rdmaform.rdmastate"}`
	os.WriteFile(filepath.Join(dir, ".rdmaform.rdmastate.lock.info"), []byte(info), 0o600)

	code, out, _ := stateCmd(t, dir, "no\n", "force-unlock", "dead-beef")
	if code != 1 || !strings.Contains(out, "Do you really want to force-unlock?") || !strings.Contains(out, "force-unlock cancelled") {
		t.Fatalf("declined force-unlock: %d %s", code, out)
	}
	code, _, errs := stateCmd(t, dir, "", "force-unlock", "-force", "other-id")
	if code != 1 || !strings.Contains(errs, `lock ID "other-id" does not match`) || !strings.Contains(errs, "dead-beef") {
		t.Fatalf("force-unlock with a wrong ID: %d %s", code, errs)
	}
	code, out, errs = stateCmd(t, dir, "yes\n", "force-unlock", "dead-beef")
	if code != 0 || !strings.Contains(out, "successfully unlocked") {
		t.Fatalf("force-unlock: %d %s %s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, ".rdmaform.rdmastate.lock.info")); !os.IsNotExist(err) {
		t.Fatal("lock info still there")
	}
}

func TestForceUnlockRefusesLiveLocalHolder(t *testing.T) {
	dir := stateDir(t, testState)
	id := holdLock(t, dir)
	code, _, errs := stateCmd(t, dir, "", "force-unlock", "-force", id)
	if code != 1 || !strings.Contains(errs, "still running") || !strings.Contains(errs, id) {
		t.Fatalf("force-unlock of a live local holder: %d %s", code, errs)
	}
}

func TestForceUnlockWithInputFalseNeedsForce(t *testing.T) {
	dir := stateDir(t, testState)
	t.Setenv("RDMAFORM_INPUT", "false")
	code, out, errs := stateCmd(t, dir, "yes\n", "force-unlock", "some-id")
	if code != 1 || !strings.Contains(errs, "add -force") || strings.Contains(out, "Enter a value") {
		t.Fatalf("force-unlock with RDMAFORM_INPUT=false: %d\n%s\n%s", code, out, errs)
	}
}

// force-unlock asks only about a lock it can remove: with no lock, another
// lock's ID or a live local holder it fails at once, as Terraform's.
func TestForceUnlockFailsBeforeAsking(t *testing.T) {
	dir := stateDir(t, testState)
	code, out, errs := stateCmd(t, dir, "yes\n", "force-unlock", "dead-beef")
	if code != 1 || strings.Contains(out, "Enter a value") || !strings.Contains(errs, "Failed to unlock state") || !strings.Contains(errs, "is not locked") {
		t.Fatalf("force-unlock with no lock: %d\n%s\n%s", code, out, errs)
	}
	info := `{"ID":"dead-beef","Operation":"OperationTypeApply","Who":"ann@h1","PID":4242,"Host":"h1","Path":"rdmaform.rdmastate"}`
	os.WriteFile(filepath.Join(dir, ".rdmaform.rdmastate.lock.info"), []byte(info), 0o600)
	code, out, errs = stateCmd(t, dir, "yes\n", "force-unlock", "other-id")
	if code != 1 || strings.Contains(out, "Enter a value") || !strings.Contains(errs, `lock ID "other-id" does not match`) {
		t.Fatalf("force-unlock with a wrong ID: %d\n%s\n%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, ".rdmaform.rdmastate.lock.info")); err != nil {
		t.Fatal("a wrong ID removed the lock info")
	}

	live := stateDir(t, testState)
	id := holdLock(t, live)
	code, out, errs = stateCmd(t, live, "yes\n", "force-unlock", id)
	if code != 1 || strings.Contains(out, "Enter a value") || !strings.Contains(errs, "still running") {
		t.Fatalf("force-unlock of a live local holder: %d\n%s\n%s", code, out, errs)
	}
}
