//go:build linux && cgo && integration

package rdmacm

import (
	"bytes"
	"context"
	"testing"
	"time"
)

// detachedNow reports whether the id's QP is off librdmacm's id, as
// StartConnect leaves it until CONNECT_RESPONSE.
func detachedNow(id *ID) bool {
	id.mu.Lock()
	defer id.mu.Unlock()
	return id.detachedQP != nil && id.cid != nil && id.cid.qp == nil
}

// The dialling side moves its own QP at CONNECT_RESPONSE (connect_linux.go):
// between StartConnect and ESTABLISHED the QP is off the id, yet a receive
// posted then lands in it, and once ESTABLISHED the QP is back, in RTS,
// and carries a message.
func TestDialerMovesItsOwnQP(t *testing.T) {
	ch := newChannel(t)
	qp := DefaultQPInit()
	l, port := listen(t, ch, testAddr(t), PSTCP, &qp)
	c := dial(t, ch, testAddr(t), port, PSTCP, &qp)
	in, err := c.RegisterBuffer(64)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.StartConnect(ConnParam{RetryCount: 7, RNRRetryCount: 7}); err != nil {
		t.Fatal(err)
	}
	if !detachedNow(c) {
		t.Fatal("after StartConnect the QP is still on the id: librdmacm would move it inside rdma_get_cm_event, on the event loop")
	}
	// The request is not taken yet, so no CONNECT_RESPONSE can have come:
	// this post runs while the QP is off the id.
	if err := c.PostRecv(in, 1); err != nil {
		t.Fatalf("PostRecv while connecting: %v", err)
	}
	ctx := ctxFor(t, time.Minute)
	req, _, err := l.GetRequest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer req.Close()
	accepted := make(chan error, 1)
	go func() { accepted <- req.Accept(ctx, ConnParam{RNRRetryCount: 7}) }()
	ev, err := c.waitEstablished(ctx, "rdma_connect")
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	if ev.Type != Established {
		t.Fatalf("connect ended with %s", ev)
	}
	if err := <-accepted; err != nil {
		t.Fatalf("accept: %v", err)
	}
	if detachedNow(c) {
		t.Fatal("the QP is not back on the id after ESTABLISHED")
	}
	f, err := c.Facts()
	if err != nil {
		t.Fatal(err)
	}
	if !f.HasQP || f.QPState != "RTS" {
		t.Fatalf("after ESTABLISHED the QP is %q (has QP: %v), want RTS", f.QPState, f.HasQP)
	}
	out, err := req.RegisterBuffer(64)
	if err != nil {
		t.Fatal(err)
	}
	msg := []byte("moved by the dialler")
	if err := out.Store(msg); err != nil {
		t.Fatal(err)
	}
	if err := req.PostSend(out, len(msg), 2); err != nil {
		t.Fatal(err)
	}
	comp, err := c.WaitRecv(ctx)
	if err != nil {
		t.Fatalf("the receive posted while connecting: %v", err)
	}
	got, err := in.Load(comp.Bytes)
	if err != nil || !bytes.Equal(got, msg) {
		t.Fatalf("received %q (%v), want %q", got, err, msg)
	}
	c.Disconnect()
}

// An id closed while its QP is off it (before CONNECT_RESPONSE) destroys
// that QP: nothing is left of it, and Close stays idempotent.
func TestCloseWhileConnectingDestroysTheDetachedQP(t *testing.T) {
	ch := newChannel(t)
	qp := DefaultQPInit()
	l, port := listen(t, ch, testAddr(t), PSTCP, &qp)
	c := dial(t, ch, testAddr(t), port, PSTCP, &qp)
	key := c.key
	if err := c.StartConnect(ConnParam{RetryCount: 7, RNRRetryCount: 7}); err != nil {
		t.Fatal(err)
	}
	if !detachedNow(c) {
		t.Fatal("after StartConnect the QP is still on the id")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	c.mu.Lock()
	left, cid := c.detachedQP, c.cid
	c.mu.Unlock()
	if left != nil {
		t.Fatal("Close left the detached QP")
	}
	// The id itself, not a count of live ids: the listener may have
	// taken the closed id's request up meanwhile, an id of its own.
	if cid != nil || ids.get(key) != nil {
		t.Fatal("Close left the id")
	}
	// The listener still serves: the request the closed id sent is
	// refused or dropped, a new one connects.
	c2 := dial(t, ch, testAddr(t), port, PSTCP, &qp)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	// Every request is accepted without waiting: the closed id's, if the
	// listener got it, is answered to no one. Each is closed at the end,
	// before the ids are counted by later tests.
	var reqs []*ID
	served := make(chan *ID)
	stopped := make(chan struct{})
	defer func() {
		cancel()
		for r := range served {
			reqs = append(reqs, r)
		}
		<-stopped
		for _, r := range reqs {
			r.Close()
		}
	}()
	go func() {
		defer close(stopped)
		defer close(served)
		for {
			req, _, err := l.GetRequest(ctx)
			if ctx.Err() != nil {
				if req != nil {
					req.Close()
				}
				return
			}
			if err != nil {
				// The closed id's request, whose QP could not be made,
				// or another event of the listener's.
				if req != nil {
					req.Close()
				}
				continue
			}
			req.StartAccept(ConnParam{RNRRetryCount: 7})
			select {
			case served <- req:
			case <-ctx.Done():
				req.Close()
				return
			}
		}
	}()
	connected := make(chan error, 1)
	go func() {
		_, err := c2.Connect(ctx, ConnParam{RetryCount: 7, RNRRetryCount: 7})
		connected <- err
	}()
	for {
		select {
		case r, ok := <-served:
			if !ok {
				t.Fatal("the listener stopped before the second connect")
			}
			reqs = append(reqs, r)
		case err := <-connected:
			if err != nil {
				t.Fatalf("connect after the closed one: %v", err)
			}
			return
		}
	}
}
