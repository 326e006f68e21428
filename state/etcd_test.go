package state

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/state/etcdtest"
	clientv3 "go.etcd.io/etcd/client/v3"
)

func TestEtcdRoundTripChunkedWithBackup(t *testing.T) {
	ep := etcdtest.Start(t)
	a := newTestEtcd(t, ep, "/t1")
	if err := a.RefreshState(); err != nil {
		t.Fatal(err)
	}
	if a.State() != nil {
		t.Fatal("State() should be nil before any state exists")
	}
	s := New()
	for i := range 300 { // ~100 KB: many 4 KiB chunks
		s.SetObject(testObject(t, "endpoint.e["+strconv.Itoa(i)+"]", i))
	}
	s.SetOutput("o", &Output{Value: json.RawMessage(`{"a":1}`)})
	a.WriteState(s)
	if err := a.PersistState(); err != nil {
		t.Fatal(err)
	}
	b := newTestEtcd(t, ep, "/t1")
	if err := b.RefreshState(); err != nil {
		t.Fatal(err)
	}
	if got := b.State(); got.Serial != 1 || !SameContent(got, s) {
		t.Fatalf("read back serial %d, same content %v", got.Serial, SameContent(got, s))
	}
	// A stale writer is refused.
	s2 := a.State()
	s2.RemoveObject(mustAddr(t, "endpoint.e[0]"))
	a.WriteState(s2)
	if err := a.PersistState(); err != nil {
		t.Fatal(err)
	}
	s3 := b.State()
	s3.RemoveObject(mustAddr(t, "endpoint.e[1]"))
	b.WriteState(s3)
	if err := b.PersistState(); err == nil || !strings.Contains(err.Error(), "changed since rdmaform read it") {
		t.Fatalf("stale etcd writer not refused: %v", err)
	}
	c := newTestEtcd(t, ep, "/t1")
	c.RefreshState()
	if got := c.State(); got.Serial != 2 || len(got.Objects) != 299 || got.Object(mustAddr(t, "endpoint.e[1]")) == nil {
		t.Fatalf("after the refused write: serial %d, %d objects", got.Serial, len(got.Objects))
	}
	// Old generations are cleaned: only the current and backup chunks remain.
	ctx, cancel := c.ctx()
	defer cancel()
	for range 2 {
		st := c.State()
		st.SetOutput("x", &Output{Value: json.RawMessage(strconv.Itoa(int(st.Serial)))})
		c.WriteState(st)
		if err := c.PersistState(); err != nil {
			t.Fatal(err)
		}
	}
	r, err := c.client.Get(ctx, c.key("state-chunks/"), clientv3WithPrefixKeysOnly()...)
	if err != nil {
		t.Fatal(err)
	}
	gens := map[string]bool{}
	for _, kv := range r.Kvs {
		gens[strings.Split(strings.TrimPrefix(string(kv.Key), c.key("state-chunks/")), "/")[0]] = true
	}
	if len(gens) != 2 {
		t.Fatalf("%d chunk generations kept, want 2 (current and backup)", len(gens))
	}
}

func TestEtcdLockAndForceUnlock(t *testing.T) {
	ep := etcdtest.Start(t)
	a, b := newTestEtcd(t, ep, "/t2"), newTestEtcd(t, ep, "/t2")
	id, err := a.Lock(NewLockInfo("OperationTypeApply"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Lock(NewLockInfo("OperationTypePlan"))
	var le *LockError
	if !errors.As(err, &le) || le.Info == nil || le.Info.ID != id || le.Info.PID != os.Getpid() {
		t.Fatalf("second locker not told the holder: %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "expires by itself") || strings.Contains(msg, "no longer runs") {
		t.Errorf("the lock error does not say how a dead holder's lock goes, or calls a live holder gone:\n%s", msg)
	}
	h, err := b.LockHolder()
	if err != nil || h == nil || h.ID != id {
		t.Fatalf("LockHolder: %+v %v", h, err)
	}
	if err := b.ForceUnlock("nope"); err == nil {
		t.Fatal("force-unlock with a wrong ID succeeded")
	}
	lost := a.LockLost()
	select {
	case <-lost:
		t.Fatal("the lock is reported lost while held")
	default:
	}
	if err := b.ForceUnlock(id); err != nil {
		t.Fatal(err)
	}
	select { // the holder learns it: its command stops changing the fabric
	case <-lost:
	case <-time.After(10 * time.Second):
		t.Fatal("the holder of a force-unlocked lock was not told")
	}
	id2, err := b.Lock(NewLockInfo("OperationTypeApply"))
	if err != nil {
		t.Fatalf("lock after force-unlock: %v", err)
	}
	if err := b.Unlock(id2); err != nil {
		t.Fatal(err)
	}
}

func TestEtcdLockExpiresWithHolder(t *testing.T) {
	ep := etcdtest.Start(t)
	a, b := newTestEtcd(t, ep, "/t3"), newTestEtcd(t, ep, "/t3")
	if _, err := a.Lock(NewLockInfo("OperationTypeApply")); err != nil {
		t.Fatal(err)
	}
	a.Close() // the holder "dies": its lease is no longer kept alive
	start := time.Now()
	id, err := LockWithTimeout(t.Context(), b, NewLockInfo("OperationTypeApply"), 20*time.Second)
	if err != nil {
		t.Fatalf("the dead holder's lock did not expire: %v", err)
	}
	t.Logf("lock expired after %v", time.Since(start).Round(time.Millisecond))
	b.Unlock(id)
}

func TestEtcdRecorder(t *testing.T) {
	ep := etcdtest.Start(t)
	a := newTestEtcd(t, ep, "/t4")
	a.RefreshState()
	rec, err := a.OpenRecorder()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for w := range 10 {
		wg.Go(func() {
			for i := range 30 {
				n := w*30 + i
				if err := rec.Record(PutObject(testObject(t, "endpoint.e["+strconv.Itoa(n)+"]", n))); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	// Before Close the journal is what holds the changes.
	b := newTestEtcd(t, ep, "/t4")
	if err := b.RefreshState(); err != nil {
		t.Fatal(err)
	}
	if n := len(b.State().Objects); n != 300 {
		t.Fatalf("journal replay: %d objects, want 300", n)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := a.ctx()
	defer cancel()
	r, _ := a.client.Get(ctx, a.key("journal/"), clientv3WithPrefixKeysOnly()...)
	if len(r.Kvs) != 0 {
		t.Fatalf("%d journal keys left after Close", len(r.Kvs))
	}
	b.RefreshState()
	if n := len(b.State().Objects); n != 300 {
		t.Fatalf("after fold: %d objects", n)
	}
}

// An apply whose changes cancel out (its only create failed: recorded as
// being made, then not) leaves no journal keys: the next recorder numbers
// its keys from 1, and a stale key after them would be replayed after its
// changes (the audit's lost object). A journal a killed run left is folded
// when the next recorder opens.
func TestEtcdJournalThatCancelsOutIsCleared(t *testing.T) {
	ep := etcdtest.Start(t)
	a := newTestEtcd(t, ep, "/t5")
	a.RefreshState()
	journalKeys := func() int {
		ctx, cancel := a.ctx()
		defer cancel()
		r, err := a.client.Get(ctx, a.key("journal/"), clientv3WithPrefixKeysOnly()...)
		if err != nil {
			t.Fatal(err)
		}
		return len(r.Kvs)
	}
	rec, err := a.OpenRecorder()
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Record(PutObject(testObject(t, "endpoint.slow", 1))); err != nil {
		t.Fatal(err)
	}
	if err := rec.Record(DeleteObject(mustAddr(t, "endpoint.slow"))); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if n := journalKeys(); n != 0 {
		t.Fatalf("%d journal keys left by changes that cancel out", n)
	}

	// The next apply is killed after recording one change: the state read
	// then holds it, and opening a recorder folds it.
	b := newTestEtcd(t, ep, "/t5")
	b.RefreshState()
	rec, err = b.OpenRecorder()
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Record(PutObject(testObject(t, "endpoint.slow", 2))); err != nil {
		t.Fatal(err)
	}
	c := newTestEtcd(t, ep, "/t5") // what the next command sees, b never closing
	if err := c.RefreshState(); err != nil || c.State().Objects["endpoint.slow"] == nil {
		t.Fatalf("after the killed run: %v, objects %v", err, c.State().Addresses())
	}
	rec2, err := c.OpenRecorder()
	if err != nil {
		t.Fatal(err)
	}
	if n := journalKeys(); n != 0 {
		t.Fatalf("%d journal keys left after a recorder opened on them", n)
	}
	if err := rec2.Record(PutObject(testObject(t, "endpoint.other", 3))); err != nil {
		t.Fatal(err)
	}
	d := newTestEtcd(t, ep, "/t5")
	if err := d.RefreshState(); err != nil || d.State().Objects["endpoint.slow"] == nil || d.State().Objects["endpoint.other"] == nil {
		t.Fatalf("replay: %v, objects %v", err, d.State().Addresses())
	}
	rec2.Close()
}

func newTestEtcd(t testing.TB, endpoint, prefix string) *Etcd {
	t.Helper()
	e, err := NewEtcd(context.Background(), EtcdOptions{Endpoints: []string{endpoint}, Prefix: prefix, ChunkSize: 4096, LockTTL: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func clientv3WithPrefixKeysOnly() []clientv3.OpOption {
	return []clientv3.OpOption{clientv3.WithPrefix(), clientv3.WithKeysOnly()}
}

// An unreachable cluster fails the lock within the request timeout rather
// than blocking (the lease was once granted without one).
func TestEtcdLockFailsWhenTheClusterIsUnreachable(t *testing.T) {
	e, err := NewEtcd(context.Background(), EtcdOptions{Endpoints: []string{"127.0.0.1:1"}, DialTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	done := make(chan error, 1)
	go func() {
		_, err := e.Lock(NewLockInfo("OperationTypePlan"))
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "creating an etcd lease") {
			t.Fatalf("Lock: %v, want the lease's failure", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Lock still blocked after 30 s on an unreachable cluster")
	}
}

// A lock whose holder ran on this host and no longer runs is said to be
// one: it goes when its lease expires.
func TestEtcdLockNoteForAHolderThatDied(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	e := &Etcd{opts: EtcdOptions{LockTTL: 5 * time.Second}}
	li := NewLockInfo("OperationTypeApply")
	li.PID, li.Host = cmd.Process.Pid, host
	if note := e.lockNote(li); !strings.Contains(note, fmt.Sprintf("process %d on this host, no longer runs: the lock expires within 5s", li.PID)) || !strings.Contains(note, "-lock-timeout=10s") {
		t.Errorf("note: %s", note)
	}
}
