package state

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// childHoldTemp is a writer caught between creating its temporary file
// for the state file and renaming it: it prints the file's name and waits
// to be killed.
func childHoldTemp(path string) error {
	tmp, err := createLockedTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	fmt.Println("HOLDING", filepath.Base(tmp.Name()))
	select {}
}

// holdTemp starts a writer holding a temporary file of the state at path
// and returns the file's name and a function that kills the writer.
func holdTemp(t *testing.T, path string) (name string, kill func()) {
	t.Helper()
	cmd := childCommand(t, "hold-temp", path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	kill = func() {
		cmd.Process.Kill()
		cmd.Wait() // the kernel has released its flock once it is reaped
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	name, ok := strings.CutPrefix(strings.TrimSpace(line), "HOLDING ")
	if err != nil || !ok {
		kill()
		t.Fatalf("the writer said %q: %v", line, err)
	}
	return name, kill
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// Taking the lock removes the temporary files killed writers left, and
// only those: not one a live writer is writing (one run with
// -lock=false), nor any other file.
func TestLockRemovesTemporaryFilesKilledWritersLeft(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, DefaultPath)
	stale := []string{
		".rdmaform.rdmastate.tmp-123",
		".rdmaform.rdmastate.backup.tmp-4",
		"..rdmaform.rdmastate.lock.info.tmp-56",
		".rdmaform.rdmastate.journal.damaged.tmp-7",
	}
	others := []string{
		"rdmaform.rdmastate",
		".rdmaform.rdmastate.tmp-12x",
		".rdmaform.rdmastate.tmp-",
		"rdmaform.rdmastate.tmp-1",
		".rdmaform.rdmastate2.tmp-1",
		".rdmaform.rdmastate.journal.tmp-8",
		".plan.tmp-9",
	}
	for _, n := range append(slices.Clone(stale), others...) {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	os.Mkdir(filepath.Join(dir, ".rdmaform.rdmastate.tmp-10"), 0o700)
	os.Symlink(filepath.Join(dir, "rdmaform.rdmastate"), filepath.Join(dir, ".rdmaform.rdmastate.tmp-11"))
	others = append(others, ".rdmaform.rdmastate.tmp-10", ".rdmaform.rdmastate.tmp-11")
	live, kill := holdTemp(t, p)
	defer kill()

	// Reading without the lock removes nothing.
	m := NewFilesystem(LocalOptions{Path: p})
	m.RefreshState()
	for _, n := range stale {
		if !slices.Contains(dirNames(t, dir), n) {
			t.Fatalf("%s removed without the lock", n)
		}
	}

	id, err := m.Lock(NewLockInfo("OperationTypeApply"))
	if err != nil {
		t.Fatal(err)
	}
	names := dirNames(t, dir)
	for _, n := range stale {
		if slices.Contains(names, n) {
			t.Errorf("%s, left by a killed writer, stays", n)
		}
	}
	for _, n := range append(others, live) {
		if !slices.Contains(names, n) {
			t.Errorf("%s was removed", n)
		}
	}
	if err := m.Unlock(id); err != nil {
		t.Fatal(err)
	}

	kill() // the writer is killed before renaming its file
	id, err = m.Lock(NewLockInfo("OperationTypeApply"))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Unlock(id)
	if slices.Contains(dirNames(t, dir), live) {
		t.Errorf("%s, left by a writer since killed, stays", live)
	}
}

// A write leaves no temporary file, and one that fails removes its own.
func TestWriteFileAtomicLeavesNoTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := writeFileAtomic(p, []byte("a")); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(dir, "d"), 0o700)
	os.WriteFile(filepath.Join(dir, "d", "x"), nil, 0o600)
	if err := writeFileAtomic(filepath.Join(dir, "d"), []byte("b")); err == nil {
		t.Fatal("renaming over a non-empty directory succeeded")
	}
	if names := dirNames(t, dir); !slices.Equal(names, []string{"d", "f"}) {
		t.Fatalf("left %v", names)
	}
}
