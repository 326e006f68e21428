package state

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/state/etcdtest"
)

// The review's scenario: A locks and opens a recorder, is force-unlocked,
// B locks and records endpoint.fromB, then A records and closes. A's
// writes are refused as a lost lock, and B's record survives (without the
// fence, A's first journal key overwrote B's, A's close wrote [base,
// fromA] and B's close failed).
func TestEtcdStaleHolderWritesAreRefused(t *testing.T) {
	ep := etcdtest.Start(t)
	base := newTestEtcd(t, ep, "/fence")
	s := New()
	s.SetObject(testObject(t, "endpoint.base", 0))
	base.WriteState(s)
	if err := base.PersistState(); err != nil {
		t.Fatal(err)
	}

	a, b := newTestEtcd(t, ep, "/fence"), newTestEtcd(t, ep, "/fence")
	idA, err := a.Lock(NewLockInfo("OperationTypeApply"))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.RefreshState(); err != nil {
		t.Fatal(err)
	}
	recA, err := a.OpenRecorder()
	if err != nil {
		t.Fatal(err)
	}
	if err := b.ForceUnlock(idA); err != nil {
		t.Fatal(err)
	}
	idB, err := b.Lock(NewLockInfo("OperationTypeApply"))
	if err != nil {
		t.Fatal(err)
	}
	if err := b.RefreshState(); err != nil {
		t.Fatal(err)
	}
	recB, err := b.OpenRecorder()
	if err != nil {
		t.Fatal(err)
	}
	if err := recB.Record(PutObject(testObject(t, "endpoint.fromB", 1))); err != nil {
		t.Fatal(err)
	}

	err = recA.Record(PutObject(testObject(t, "endpoint.fromA", 2)))
	var ll *LockLostError
	if !errors.As(err, &ll) || !strings.Contains(err.Error(), "lost the state lock") {
		t.Fatalf("the stale holder's record: %v, want a lost-lock refusal", err)
	}
	if err := recA.Close(); !errors.As(err, &ll) {
		t.Fatalf("the stale holder's close: %v, want a lost-lock refusal", err)
	}
	if err := recB.Close(); err != nil {
		t.Fatalf("the new holder's close: %v", err)
	}
	if err := b.Unlock(idB); err != nil {
		t.Fatal(err)
	}
	a.Unlock(idA) // its lock is gone; this only forgets it

	c := newTestEtcd(t, ep, "/fence")
	if err := c.RefreshState(); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(c.State().Addresses()); got != "[endpoint.base endpoint.fromB]" {
		t.Fatalf("final state %s, want endpoint.base endpoint.fromB", got)
	}
}

// A holder whose lease expired (revoked here, as expiry does, without
// waiting for it) has its journal and state writes refused even when no
// other command has written since: only the fence stops them.
func TestEtcdWritesAfterTheLeaseEndsAreRefused(t *testing.T) {
	ep := etcdtest.Start(t)
	a := newTestEtcd(t, ep, "/lease")
	if _, err := a.Lock(NewLockInfo("OperationTypeApply")); err != nil {
		t.Fatal(err)
	}
	if err := a.RefreshState(); err != nil {
		t.Fatal(err)
	}
	rec, err := a.OpenRecorder()
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Record(PutObject(testObject(t, "endpoint.before", 1))); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := a.ctx()
	defer cancel()
	if _, err := a.client.Revoke(ctx, a.session.Lease()); err != nil {
		t.Fatal(err)
	}

	err = rec.Record(PutObject(testObject(t, "endpoint.after", 2)))
	var ll *LockLostError
	if !errors.As(err, &ll) {
		t.Fatalf("a record after the lease ended: %v, want a lost-lock refusal", err)
	}
	if err := rec.Close(); !errors.As(err, &ll) {
		t.Fatalf("close after the lease ended: %v, want a lost-lock refusal", err)
	}
	// A plain save is fenced too.
	st := a.State()
	st.SetObject(testObject(t, "endpoint.saved", 3))
	a.WriteState(st)
	if err := a.PersistState(); !errors.As(err, &ll) {
		t.Fatalf("a save after the lease ended: %v, want a lost-lock refusal", err)
	}

	c := newTestEtcd(t, ep, "/lease")
	if err := c.RefreshState(); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(c.State().Addresses()); got != "[endpoint.before]" {
		t.Fatalf("state %s, want only what was recorded under the lock: endpoint.before", got)
	}
}
