//go:build linux && cgo && integration

package rdmacm

import (
	"context"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
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

// A failed ibv_poll_cq or ibv_get_cq_event on a pair's CQ is heard by both
// ids, with the call and errno, and a QP made after goes elsewhere: to
// another CQ when the poll failed, to a new pool when the completion
// channel did.
func TestFailedCQPollIsReported(t *testing.T) {
	testCompletionFault(t, "ibv_poll_cq", syscall.EIO, func(other, failed *ID) bool { return other.cq == failed.cq })
}

func TestFailedCompletionChannelIsReported(t *testing.T) {
	testCompletionFault(t, "ibv_get_cq_event", syscall.EBADF, func(other, failed *ID) bool { return other.cqPool == failed.cqPool })
}

// testCompletionFault makes call fail with errno once, sends on a pair and
// checks both ids hear of it and a new QP does not share what failed.
func testCompletionFault(t *testing.T, call string, errno syscall.Errno, sharesFailed func(other, failed *ID) bool) {
	client, server := rcPair(t, testAddr(t), nil)
	failOnce(t, call, errno)
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
	name := unix.ErrnoName(errno)
	for _, id := range []*ID{client, server} {
		e := waitFor(t, id, CompletionFailed)
		if e.Err == nil || !strings.Contains(e.Err.Error(), call) || !strings.Contains(e.Err.Error(), name) {
			t.Errorf("%s: %v, want the failed %s and %s", e.Type, e.Err, call, name)
		}
		t.Logf("%v", e)
	}
	qp := DefaultQPInit()
	other := dial(t, client.channel, testAddr(t), freePort(), PSTCP, &qp)
	if sharesFailed(other, client) {
		t.Errorf("a new QP went where %s failed", call)
	}
}
