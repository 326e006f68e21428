//go:build linux && cgo && integration

package rdmacm

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestOnEventsHandsOverEvents accepts a connection and only then gives its
// id a handler: the ESTABLISHED that arrived in between is handed over by
// OnEvents, the peer's DISCONNECTED later by the event loop, in order, and
// NextEvent sees neither.
func TestOnEventsHandsOverEvents(t *testing.T) {
	ch := newChannel(t)
	qp := DefaultQPInit()
	l, port := listen(t, ch, testAddr(t), PSTCP, &qp)
	client := dial(t, ch, testAddr(t), port, PSTCP, &qp)
	ctx := ctxFor(t, 20*time.Second)

	if err := client.StartConnect(ConnParam{RetryCount: 7, RNRRetryCount: 7}); err != nil {
		t.Fatal(err)
	}
	req, _, err := l.GetRequest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { req.Close() })
	if err := req.StartAccept(ConnParam{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.WaitEvent(ctx, Established); err != nil {
		t.Fatal(err)
	}
	// The client's ESTABLISHED follows the RTU that makes the server's, so
	// give the server's a moment to be queued before the handler is set.
	time.Sleep(100 * time.Millisecond)

	got := make(chan Event, 4)
	req.OnEvents(func(e Event) { got <- e })
	if err := client.Disconnect(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []EventType{Established, Disconnected} {
		select {
		case e := <-got:
			if e.Type != want || e.ID != req {
				t.Fatalf("handler got %v on %p, want %v on the accepted id %p", e.Type, e.ID, want, req)
			}
		case <-ctx.Done():
			t.Fatalf("handler never got %v", want)
		}
	}
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if e, err := req.NextEvent(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("NextEvent after OnEvents returned %v, %v; want nothing (the handler takes the events)", e.Type, err)
	}
}
