package main

import (
	"errors"
	"strings"
	"testing"

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
	var errb strings.Builder
	l := lockFlags{lock: true}
	if _, ok := l.acquire(unreachableLocker{}, "OperationTypePlan", &errb); ok {
		t.Fatal("locked")
	}
	for _, want := range []string{"Error: Error acquiring the state lock", "Error message: creating an etcd lease", "-lock=false"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("no %q in:\n%s", want, errb.String())
		}
	}
}
