package state

import (
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/state/etcdtest"
)

// Chunks that writers left without committing a header (one crashed, one
// timed out) are removed by the next save under the lock; the current
// state and its backup stay whole.
func TestEtcdOrphanChunksAreRemoved(t *testing.T) {
	ep := etcdtest.Start(t)
	a := newTestEtcd(t, ep, "/orphans")
	a.RefreshState()
	save := func(n int) {
		t.Helper()
		s := a.State()
		if s == nil {
			s = New()
		}
		s.SetObject(testObject(t, "endpoint.e", n))
		a.WriteState(s)
		if err := a.PersistState(); err != nil {
			t.Fatal(err)
		}
	}
	save(1)
	save(2) // a backup exists
	ctx, cancel := a.ctx()
	defer cancel()
	for _, k := range []string{"state-chunks/crashed-writer/000000", "state-chunks/crashed-writer/000001", "state-chunks/timed-out/000000"} {
		if _, err := a.client.Put(ctx, a.key(k), "left over"); err != nil {
			t.Fatal(err)
		}
	}
	gens := func() map[string]bool {
		t.Helper()
		r, err := a.client.Get(ctx, a.key("state-chunks/"), clientv3WithPrefixKeysOnly()...)
		if err != nil {
			t.Fatal(err)
		}
		g := map[string]bool{}
		for _, kv := range r.Kvs {
			g[strings.Split(strings.TrimPrefix(string(kv.Key), a.key("state-chunks/")), "/")[0]] = true
		}
		return g
	}
	id, err := a.Lock(NewLockInfo("OperationTypeApply"))
	if err != nil {
		t.Fatal(err)
	}
	save(3)
	if err := a.Unlock(id); err != nil {
		t.Fatal(err)
	}
	g := gens()
	if g["crashed-writer"] || g["timed-out"] || len(g) != 2 {
		t.Fatalf("chunk generations after a locked save: %v, want only the current and the backup", g)
	}
	b := newTestEtcd(t, ep, "/orphans")
	if err := b.RefreshState(); err != nil || attrN(t, b.State().Object(mustAddr(t, "endpoint.e"))) != 3 {
		t.Fatalf("state after the cleanup: %v", err)
	}
	r, err := a.client.Get(ctx, a.key("state.backup"))
	if err != nil || len(r.Kvs) != 1 {
		t.Fatalf("backup: %v", err)
	}
	if _, err := b.readChunks(ctx, r.Kvs[0].Value, 0); err != nil {
		t.Fatalf("the backup's chunks: %v", err)
	}
}
