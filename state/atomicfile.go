package state

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// writeFileAtomic replaces path with data so that after a crash path holds
// either its old or its new content: a temporary file in the same
// directory, fsync, rename over path, fsync the directory. The file is
// created with mode 0600.
//
// The temporary file is flock'd until it is renamed: a writer killed
// before that leaves a file whose flock the kernel released, which
// removeStaleTemps then knows no live writer is writing.
func writeFileAtomic(path string, data []byte) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := createLockedTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			os.Remove(tmp.Name()) // while its flock is held
		}
		tmp.Close()
	}()
	if err = tmp.Chmod(0o600); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("writing %s: fsync: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return syncDir(dir)
}

// createLockedTemp creates a temporary file and takes its flock. A
// cleaner removes a file only while holding its flock; if one did so
// between the creation and the flock, the name no longer leads to the
// file and it starts again. Where the file system has no flock the file
// stays unlocked, and no cleaner removes it (it cannot take the flock).
func createLockedTemp(dir, pattern string) (*os.File, error) {
	for {
		tmp, err := os.CreateTemp(dir, pattern)
		if err != nil {
			return nil, err
		}
		if err := retryEINTR(func() error { return unix.Flock(int(tmp.Fd()), unix.LOCK_EX) }); err != nil {
			return tmp, nil
		}
		if sameFile(tmp, tmp.Name()) {
			return tmp, nil
		}
		tmp.Close()
	}
}

// removeStaleTemps removes the temporary files of this state's files that
// writers killed before renaming them left behind. Called with the state
// lock held, so no writer that locks is writing one; a file whose flock
// is held is being written by a live writer all the same (one run with
// -lock=false) and stays. Only names writeFileAtomic makes for these
// files are looked at: .BASE.tmp-DIGITS.
func (f *Filesystem) removeStaleTemps() {
	dir := filepath.Dir(f.path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.Type().IsRegular() && f.isTemp(e.Name()) {
			removeUnlocked(filepath.Join(dir, e.Name()))
		}
	}
}

// isTemp says whether name is a temporary file writeFileAtomic makes for
// one of this state's files.
func (f *Filesystem) isTemp(name string) bool {
	for _, p := range []string{f.path, f.backupPath, f.infoPath, f.journalPath + ".damaged"} {
		digits, ok := strings.CutPrefix(name, "."+filepath.Base(p)+".tmp-")
		if ok && digits != "" && strings.Trim(digits, "0123456789") == "" {
			return true
		}
	}
	return false
}

// removeUnlocked removes path if nobody holds its flock, holding it while
// removing so that a writer that created it just now sees it go.
func removeUnlocked(path string) {
	file, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return
	}
	defer file.Close()
	if err := unix.Flock(int(file.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		return // being written, or the file system has no flock
	}
	if sameFile(file, path) {
		os.Remove(path)
	}
}

// sameFile says whether path names the file open as file.
func sameFile(file *os.File, path string) bool {
	var open, named unix.Stat_t
	if unix.Fstat(int(file.Fd()), &open) != nil || unix.Lstat(path, &named) != nil {
		return false
	}
	return open.Ino == named.Ino && open.Dev == named.Dev
}

// syncDir makes a rename or removal in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("fsync directory %s: %w", dir, err)
	}
	return nil
}
