package command

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/state"
)

// unreachableLocker is a backend that cannot take the lock at all.
type unreachableLocker struct{}

func (unreachableLocker) Lock(*state.LockInfo) (string, error) {
	return "", errors.New("creating an etcd lease on etcd http://127.0.0.1:2379: etcd did not answer within 5s: context deadline exceeded")
}
func (unreachableLocker) Unlock(string) error { return nil }

// A backend that fails to lock (rather than finds the lock held) is said
// as Terraform says it, with what to do.
func TestLockFailureIsSaidAsTerraform(t *testing.T) {
	t.Parallel()
	var errb strings.Builder
	l := lockFlags{lock: true}
	if _, ok := l.acquire(unreachableLocker{}, "OperationTypePlan", Meta{Err: &errb}); ok {
		t.Fatal("locked")
	}
	for _, want := range []string{"Error: Error acquiring the state lock", "Error message: creating an etcd lease", "-lock=false"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("no %q in:\n%s", want, errb.String())
		}
	}
}

// expiringLocker locks, and fails to unlock a lock that expires by itself
// (an etcd lease).
type expiringLocker struct{}

func (expiringLocker) Lock(*state.LockInfo) (string, error) { return "id-1", nil }
func (expiringLocker) Unlock(string) error {
	return &state.UnlockError{Err: errors.New("etcdserver: request timed out"), ExpiresIn: 15 * time.Second}
}

// A lock that could not be released but expires by itself says so,
// before force-unlock.
func TestUnlockFailureOfAnExpiringLockSaysItExpires(t *testing.T) {
	t.Parallel()
	var errb strings.Builder
	l := lockFlags{lock: true}
	unlock, ok := l.acquire(expiringLocker{}, "OperationTypeApply", Meta{Err: &errb})
	if !ok {
		t.Fatal(errb.String())
	}
	unlock()
	if !strings.Contains(errb.String(), "The lock expires by itself 15s after this command exits") || !strings.Contains(errb.String(), "-lock-timeout=20s") {
		t.Errorf("%s", errb.String())
	}
}
