package state

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/state/etcdtest"
)

// A record larger than etcd takes in one request (a large output: 2 MiB
// against the default 1.5 MiB limit, scaled down here to 200 KiB against
// 64 KiB) is written in parts and replayed whole, and the recorder goes on
// recording; a batch of records larger than the limit together is split
// over several transactions.
func TestEtcdJournalRecordOverTheRequestLimit(t *testing.T) {
	srv := etcdtest.StartWith(t, etcdtest.Options{MaxRequestBytes: 64 << 10})
	open := func() *Etcd {
		e, err := NewEtcd(context.Background(), EtcdOptions{Endpoints: []string{srv.URL}, Prefix: "/big", ChunkSize: 16 << 10, LockTTL: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}
	a := open()
	if _, err := a.Lock(NewLockInfo("OperationTypeApply")); err != nil {
		t.Fatal(err)
	}
	a.RefreshState()
	rec, err := a.OpenRecorder()
	if err != nil {
		t.Fatal(err)
	}
	big := `"` + strings.Repeat("x", 200<<10) + `"`
	if err := rec.Record(PutOutput("big", &Output{Value: json.RawMessage(big)})); err != nil {
		t.Fatalf("a 200 KiB record: %v", err)
	}
	// 100 records of 2 KiB, submitted together: one batch of 200 KiB.
	var last *Pending
	for i := range 100 {
		o := testObject(t, "endpoint.e["+strconv.Itoa(i)+"]", i)
		o.Attributes = json.RawMessage(`{"n":` + strconv.Itoa(i) + `,"pad":"` + strings.Repeat("y", 2<<10) + `"}`)
		last = rec.Submit(PutObject(o))
	}
	if err := last.Wait(); err != nil {
		t.Fatalf("a batch over the request limit: %v", err)
	}
	if err := rec.Record(PutObject(testObject(t, "endpoint.after", 1))); err != nil {
		t.Fatalf("a record after the large ones: %v", err)
	}

	check := func(when string) {
		t.Helper()
		b := open()
		if err := b.RefreshState(); err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		s := b.State()
		if o := s.Outputs["big"]; o == nil || string(o.Value) != big {
			t.Fatalf("%s: the large output was not read back whole", when)
		}
		if len(s.Objects) != 101 || s.Object(mustAddr(t, "endpoint.after")) == nil {
			t.Fatalf("%s: %d objects, want 101", when, len(s.Objects))
		}
	}
	check("replaying the journal")
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	check("after the journal was folded")
	ctx, cancel := a.ctx()
	defer cancel()
	r, err := a.client.Get(ctx, a.key("journal-parts/"), clientv3WithPrefixKeysOnly()...)
	if err != nil || len(r.Kvs) != 0 {
		t.Fatalf("%d journal parts left after the journal was folded (%v)", len(r.Kvs), err)
	}
}
