package state

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// The local lock is a flock(2) on .PATH.lock, a file that is never
// removed (removing a flock'd file lets two processes lock two different
// files). flock belongs to the open file description, so closing another
// descriptor of the file does not drop it (unlike POSIX fcntl locks), and
// the kernel releases it when the holder dies. The holder's LockInfo is in
// .PATH.lock.info, written after the flock is taken and removed before it
// is released.

// Lock takes the lock without waiting.
func (f *Filesystem) Lock(info *LockInfo) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.lockFile != nil {
		return "", &LockError{Info: f.readLockInfo(), Err: fmt.Errorf("%s is already locked by this process", f.path)}
	}
	lf, err := f.flockLockFile()
	if err != nil {
		return "", err
	}
	li := *info
	li.ID, li.Path = newLockID(), f.path
	if err := writeFileAtomic(f.infoPath, li.marshal()); err != nil {
		lf.Close()
		return "", err
	}
	f.lockFile, f.lockID = lf, li.ID
	f.removeStaleTemps()
	return li.ID, nil
}

// Unlock releases the lock taken under id.
func (f *Filesystem) Unlock(id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.lockFile == nil {
		return fmt.Errorf("%s is not locked by this process", f.path)
	}
	if id != f.lockID {
		return fmt.Errorf("lock ID %q does not match the held lock %q", id, f.lockID)
	}
	rmErr := os.Remove(f.infoPath)
	// The lock file goes too, as Terraform leaves no lock file behind:
	// removed while the flock is held, so that whoever opened it before
	// finds, once they hold its flock, that the path names no file or
	// another one, and starts again (see flockLockFile).
	if err := os.Remove(f.lockPath); err != nil && !errors.Is(err, fs.ErrNotExist) && rmErr == nil {
		rmErr = err
	}
	err := f.lockFile.Close() // releases the flock
	f.lockFile, f.lockID = nil, ""
	if rmErr != nil && !errors.Is(rmErr, fs.ErrNotExist) {
		return rmErr
	}
	return err
}

// LockHolder returns who holds the lock, or nil when nobody does (a lock
// info file left by a process that died is reported as nil).
func (f *Filesystem) LockHolder() (*LockInfo, error) {
	held, err := f.flockHeld()
	if err != nil || !held {
		return nil, err
	}
	return f.waitLockInfo(), nil
}

// ForceUnlockable returns the lock info left under id, or why
// ForceUnlock(id) would refuse: no lock, another ID, or a holder still
// running (a local lock is released by the kernel when its holder exits).
func (f *Filesystem) ForceUnlockable(id string) (*LockInfo, error) {
	li := f.readLockInfo()
	if li == nil {
		if held, err := f.flockHeld(); err == nil && held {
			return nil, fmt.Errorf("the lock on %s is held by a process that has not written %s (it may be starting, or not be rdmaform); a local lock is released when its holder exits, so stop that process instead (fuser %s names it)", f.path, f.infoPath, f.lockPath)
		}
		return nil, fmt.Errorf("%s is not locked (no %s)", f.path, f.infoPath)
	}
	if li.ID != id {
		return nil, fmt.Errorf("lock ID %q does not match the current lock:\n%s", id, li)
	}
	held, err := f.flockHeld()
	if err != nil {
		return nil, err
	}
	if held {
		return nil, fmt.Errorf("the lock on %s is held by process %d on %s, which is still running; a local lock is released when its holder exits, so stop that process instead:\n%s", f.path, li.PID, li.Host, li)
	}
	return li, nil
}

// ForceUnlock removes the lock info left under id, if ForceUnlockable.
func (f *Filesystem) ForceUnlock(id string) error {
	if _, err := f.ForceUnlockable(id); err != nil {
		return err
	}
	if err := os.Remove(f.infoPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// flockLockFile opens (creating it) the lock file and takes its flock
// without waiting. Unlock removes the file while holding its flock, so a
// flock taken on a file that is no longer (or no longer the file) at the
// path locks nothing: it starts again with the path's file.
func (f *Filesystem) flockLockFile() (*os.File, error) {
	for {
		lf, err := os.OpenFile(f.lockPath, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, fmt.Errorf("opening lock file: %w", err)
		}
		if err := f.flockOrHolder(lf); err != nil {
			lf.Close()
			return nil, err
		}
		var held, atPath unix.Stat_t
		if unix.Fstat(int(lf.Fd()), &held) == nil && unix.Stat(f.lockPath, &atPath) == nil && held.Ino == atPath.Ino && held.Dev == atPath.Dev {
			return lf, nil
		}
		lf.Close() // removed by the holder that just unlocked: again
	}
}

// flockOrHolder takes lf's flock without waiting, or returns a LockError
// naming the holder. While the flock is held but the info absent, the
// holder is between taking the flock and writing its info, or between
// removing it and releasing the flock: it looks again rather than report
// an unknown holder.
func (f *Filesystem) flockOrHolder(lf *os.File) error {
	deadline := time.Now().Add(holderInfoWait)
	for {
		err := unix.Flock(int(lf.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) {
			return fmt.Errorf("locking %s: %w", f.lockPath, err)
		}
		li := f.readLockInfo()
		if li == nil && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
			continue
		}
		if li == nil {
			li = f.unknownHolder()
		}
		return &LockError{Info: li, Err: fmt.Errorf("%s is locked by another process", f.path)}
	}
}

// flockHeld reports whether some process holds the flock.
func (f *Filesystem) flockHeld() (bool, error) {
	f.mu.Lock()
	mine := f.lockFile != nil
	f.mu.Unlock()
	if mine {
		return true, nil
	}
	lf, err := os.OpenFile(f.lockPath, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer lf.Close()
	err = unix.Flock(int(lf.Fd()), unix.LOCK_SH|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}

func (f *Filesystem) readLockInfo() *LockInfo {
	b, err := os.ReadFile(f.infoPath)
	if err != nil {
		return nil
	}
	li, err := unmarshalLockInfo(b, f.infoPath)
	if err != nil {
		return nil
	}
	return li
}

// waitLockInfo reads the holder's info, allowing it a moment to write it
// after taking the flock.
func (f *Filesystem) waitLockInfo() *LockInfo {
	for deadline := time.Now().Add(holderInfoWait); ; time.Sleep(5 * time.Millisecond) {
		if li := f.readLockInfo(); li != nil {
			return li
		}
		if held, err := f.flockHeld(); err != nil || !held || time.Now().After(deadline) {
			return f.unknownHolder()
		}
	}
}

func (f *Filesystem) unknownHolder() *LockInfo {
	return &LockInfo{ID: "(unknown: the holder has not written " + f.infoPath + ")", Path: f.path}
}
