package rdmacm

import (
	"errors"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

func TestMemlockErrorSaysTheLimitAndHowToRaiseIt(t *testing.T) {
	err := error(&OpError{Op: "rdma_create_qp", Err: &MemlockError{Limit: 8 << 20}})
	msg := err.Error()
	for _, want := range []string{"rdma_create_qp", "ENOMEM", "8 MiB", "RLIMIT_MEMLOCK", "LimitMEMLOCK=infinity", "limits.conf", "ulimit -l"} {
		if !strings.Contains(msg, want) {
			t.Errorf("missing %q in: %s", want, msg)
		}
	}
	if !errors.Is(err, syscall.ENOMEM) {
		t.Error("errors.Is(err, ENOMEM) is false")
	}
	if s := (&MemlockError{Limit: 65536}).Error(); !strings.Contains(s, "64 KiB") {
		t.Errorf("64 KiB limit: %s", s)
	}
}

func TestMemlockHintOnlyForENOMEM(t *testing.T) {
	if err := memlockHint(syscall.EINVAL); err != syscall.EINVAL {
		t.Errorf("EINVAL became %v", err)
	}
	var m *MemlockError
	if err := memlockHint(syscall.ENOMEM); !errors.As(err, &m) {
		t.Errorf("ENOMEM gave %T %v, want a MemlockError", err, err)
	}
}

// TestRaiseMemlockLimitLiftsTheSoftLimit lowers the soft limit (which any
// process may), raises it, and restores it.
func TestRaiseMemlockLimitLiftsTheSoftLimit(t *testing.T) {
	var orig unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_MEMLOCK, &orig); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Setrlimit(unix.RLIMIT_MEMLOCK, &orig) })
	if orig.Max < 2 {
		t.Fatalf("the hard limit is %d: nothing to raise to", orig.Max)
	}
	low := unix.Rlimit{Cur: 1, Max: orig.Max}
	if err := unix.Setrlimit(unix.RLIMIT_MEMLOCK, &low); err != nil {
		t.Fatal(err)
	}
	got, err := RaiseMemlockLimit()
	if err != nil {
		t.Fatal(err)
	}
	var now unix.Rlimit
	unix.Getrlimit(unix.RLIMIT_MEMLOCK, &now)
	if now.Cur != got.Cur || (now.Cur != orig.Max && now.Cur != unix.RLIM_INFINITY) {
		t.Errorf("after RaiseMemlockLimit the soft limit is %d (returned %d), want the hard limit %d or unlimited", now.Cur, got.Cur, orig.Max)
	}
}
