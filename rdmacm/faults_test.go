//go:build linux && cgo && integration

package rdmacm

import (
	"context"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// failOnce makes the completion poller's next call op fail with errno, once.
func failOnce(t *testing.T, op string, errno syscall.Errno) {
	var once sync.Once
	f := func(got string) error {
		var err error
		if got == op {
			once.Do(func() { err = errno })
		}
		return err
	}
	cqFault.Store(&f)
	t.Cleanup(func() { cqFault.Store(nil) })
}

// waitFor takes id's events until one of type want, failing on anything
// but a DISCONNECTED-free wait within a generous bound.
func waitFor(t *testing.T, id *ID, want EventType) Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		e, err := id.NextEvent(ctx)
		if err != nil {
			t.Fatalf("waiting for %s: %v", want, err)
		}
		if e.Type == want {
			return e
		}
	}
}

// TestFailedCQPollIsReported makes ibv_poll_cq fail on a pair's CQ: both
// ids hear of it, with the call and errno, and a QP made after goes to
// another CQ.
func TestFailedCQPollIsReported(t *testing.T) {
	client, server := rcPair(t, testAddr(t), nil)
	failOnce(t, "ibv_poll_cq", syscall.EIO)
	buf, err := client.RegisterBuffer(64)
	if err != nil {
		t.Fatal(err)
	}
	rbuf, err := server.RegisterBuffer(64)
	if err != nil {
		t.Fatal(err)
	}
	if err := server.PostRecv(rbuf, 1); err != nil {
		t.Fatal(err)
	}
	if err := client.PostSend(buf, 8, 2); err != nil {
		t.Fatal(err)
	}
	for _, id := range []*ID{client, server} {
		e := waitFor(t, id, CompletionFailed)
		if e.Err == nil || !strings.Contains(e.Err.Error(), "ibv_poll_cq") || !strings.Contains(e.Err.Error(), "EIO") {
			t.Errorf("%s: %v, want the failed ibv_poll_cq and its errno", e.Type, e.Err)
		}
		t.Logf("%v", e)
	}
	qp := DefaultQPInit()
	ch := client.channel
	other := dial(t, ch, testAddr(t), freePort(), PSTCP, &qp)
	if other.cq == client.cq {
		t.Error("a new QP went to the CQ whose poll failed")
	}
}

// TestFailedCompletionChannelIsReported makes ibv_get_cq_event fail: every
// id of the pool hears of it, and a QP made after gets a new pool.
func TestFailedCompletionChannelIsReported(t *testing.T) {
	client, server := rcPair(t, testAddr(t), nil)
	failOnce(t, "ibv_get_cq_event", syscall.EBADF)
	buf, err := client.RegisterBuffer(64)
	if err != nil {
		t.Fatal(err)
	}
	rbuf, err := server.RegisterBuffer(64)
	if err != nil {
		t.Fatal(err)
	}
	if err := server.PostRecv(rbuf, 1); err != nil {
		t.Fatal(err)
	}
	if err := client.PostSend(buf, 8, 2); err != nil {
		t.Fatal(err)
	}
	for _, id := range []*ID{client, server} {
		e := waitFor(t, id, CompletionFailed)
		if e.Err == nil || !strings.Contains(e.Err.Error(), "ibv_get_cq_event") || !strings.Contains(e.Err.Error(), "EBADF") {
			t.Errorf("%s: %v, want the failed ibv_get_cq_event and its errno", e.Type, e.Err)
		}
		t.Logf("%v", e)
	}
	qp := DefaultQPInit()
	other := dial(t, client.channel, testAddr(t), freePort(), PSTCP, &qp)
	if other.cqPool == client.cqPool {
		t.Error("a new QP went to the pool whose completion channel failed")
	}
}
