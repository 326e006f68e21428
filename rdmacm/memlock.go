package rdmacm

import (
	"errors"
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"
)

// Every QP, CQ and memory region pins memory, counted against the
// locked-memory limit (RLIMIT_MEMLOCK) of a process without
// CAP_IPC_LOCK: with the usual 8 MiB, a non-root program on real hardware
// runs out after a few hundred QPs, and the verbs call fails with ENOMEM.

// RaiseMemlockLimit lifts the locked-memory limit as far as the process
// may: to unlimited when privileged, else the soft limit to the hard one.
// It returns the limit in force after, and an error when it could not even
// be read.
func RaiseMemlockLimit() (unix.Rlimit, error) {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_MEMLOCK, &lim); err != nil {
		return lim, fmt.Errorf("getrlimit(RLIMIT_MEMLOCK): %w", err)
	}
	if lim.Cur == unix.RLIM_INFINITY {
		return lim, nil
	}
	all := unix.Rlimit{Cur: unix.RLIM_INFINITY, Max: unix.RLIM_INFINITY}
	if unix.Setrlimit(unix.RLIMIT_MEMLOCK, &all) == nil {
		return all, nil
	}
	if lim.Cur < lim.Max {
		raised := unix.Rlimit{Cur: lim.Max, Max: lim.Max}
		if err := unix.Setrlimit(unix.RLIMIT_MEMLOCK, &raised); err != nil {
			return lim, fmt.Errorf("setrlimit(RLIMIT_MEMLOCK): %w", err)
		}
		return raised, nil
	}
	return lim, nil
}

// MemlockError is ENOMEM from a verbs call that pins memory, explained:
// the usual cause is the locked-memory limit, not a lack of memory.
type MemlockError struct {
	Limit uint64 // the soft RLIMIT_MEMLOCK in bytes when the call failed
}

func (e *MemlockError) Error() string {
	limit := "unlimited"
	if e.Limit != unix.RLIM_INFINITY {
		limit = byteSize(e.Limit)
	}
	return fmt.Sprintf("cannot allocate memory (ENOMEM): the RDMA device pins the memory of every QP, CQ and "+
		"memory region, and this process may lock only %s (RLIMIT_MEMLOCK); raise it: run the agent as root, "+
		"or set LimitMEMLOCK=infinity in its systemd unit, or a \"memlock\" line in /etc/security/limits.conf "+
		"(ulimit -l shows the limit)", limit)
}

// Unwrap is ENOMEM, so errors.Is(err, syscall.ENOMEM) holds.
func (e *MemlockError) Unwrap() error { return syscall.ENOMEM }

// memlockHint turns ENOMEM from a call that pins memory into a
// MemlockError naming the limit; other errors are returned as they are.
func memlockHint(err error) error {
	if !errors.Is(err, syscall.ENOMEM) {
		return err
	}
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_MEMLOCK, &lim) != nil {
		return err
	}
	return &MemlockError{Limit: lim.Cur}
}

func byteSize(n uint64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
