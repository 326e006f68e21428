//go:build linux && cgo && integration

package rdmacm

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// connectOne connects a new client to l and accepts it, returning both ids.
func connectOne(t *testing.T, ch *EventChannel, l *ID, port string) (client, server *ID) {
	qp := DefaultQPInit()
	client = dial(t, ch, testAddr(t), port, PSTCP, &qp)
	ctx := ctxFor(t, 30*time.Second)
	accepted := make(chan error, 1)
	go func() {
		req, _, err := l.GetRequest(ctx)
		if err != nil {
			accepted <- err
			return
		}
		server = req
		accepted <- req.Accept(ctx, ConnParam{})
	}()
	if _, err := client.Connect(ctx, ConnParam{RetryCount: 7, RNRRetryCount: 7}); err != nil {
		t.Fatalf("Connect: %v", err)
	}
	if err := <-accepted; err != nil {
		t.Fatalf("Accept: %v", err)
	}
	t.Cleanup(func() { server.Close() })
	return client, server
}

// closedOrGone is how a data path may end when its ids close under it:
// ErrClosed, or a completion with an error status (flushed, or the peer's
// QP gone first).
func closedOrGone(err error) bool {
	var ce *CompletionError
	return errors.Is(err, ErrClosed) || errors.As(err, &ce)
}

// probeUntilClosed sends numbered messages and checks their echoes until
// the id closes; each round trip is reported on trips.
func probeUntilClosed(ctx context.Context, id *ID, trips chan<- struct{}) error {
	msg, err := id.RegisterBuffer(64)
	if err != nil {
		return err
	}
	reply, err := id.RegisterBuffer(64)
	if err != nil {
		return err
	}
	var tag [8]byte
	for seq := uint64(1); ; seq++ {
		if err := id.PostRecv(reply, 1); err != nil {
			return err
		}
		binary.LittleEndian.PutUint64(tag[:], seq)
		if err := msg.Store(tag[:]); err != nil {
			return err
		}
		if err := id.PostSend(msg, len(tag), 2); err != nil {
			return err
		}
		if _, err := id.WaitSend(ctx); err != nil {
			return err
		}
		c, err := id.WaitRecv(ctx)
		if err != nil {
			return err
		}
		got, err := reply.Load(c.Bytes)
		if err != nil {
			return err
		}
		if string(got) != string(tag[:]) {
			return fmt.Errorf("echo %x of probe %d", got, seq)
		}
		select {
		case trips <- struct{}{}:
		default:
		}
	}
}

// echoUntilClosed sends every message back until the id closes.
func echoUntilClosed(ctx context.Context, id *ID, ready chan<- struct{}) error {
	in, err := id.RegisterBuffer(64)
	if err != nil {
		return err
	}
	out, err := id.RegisterBuffer(64)
	if err != nil {
		return err
	}
	if err := id.PostRecv(in, 1); err != nil {
		return err
	}
	close(ready)
	for {
		c, err := id.WaitRecv(ctx)
		if err != nil {
			return err
		}
		got, err := in.Load(c.Bytes)
		if err != nil {
			return err
		}
		if err := out.Store(got); err != nil {
			return err
		}
		if err := id.PostRecv(in, 1); err != nil {
			return err
		}
		if err := id.PostSend(out, len(got), 2); err != nil {
			return err
		}
		if _, err := id.WaitSend(ctx); err != nil {
			return err
		}
	}
}

// Ids closed while a prober and an echo post, wait and copy on them: every
// data-path call ends with ErrClosed (or a completion error), buffers are
// freed only once the QP is gone (earlyFrees), and the race detector and
// the C heap see no use after free. Each iteration closes after a different
// number of round trips, both sides at once, each twice.
func TestCloseWhileDataPathRuns(t *testing.T) {
	iterations := envInt("RDMAFORM_CLOSE_ITERATIONS", 150)
	ch := newChannel(t)
	qp := DefaultQPInit()
	l, port := listen(t, ch, testAddr(t), PSTCP, &qp)
	before := earlyFrees.Load()
	for i := range iterations {
		client, server := connectOne(t, ch, l, port)
		ctx := ctxFor(t, 60*time.Second)
		ready := make(chan struct{})
		trips := make(chan struct{})
		errs := make(chan error, 2)
		go func() { errs <- echoUntilClosed(ctx, server, ready) }()
		select {
		case <-ready:
		case err := <-errs:
			t.Fatalf("iteration %d: echo did not start: %v", i, err)
		}
		go func() { errs <- probeUntilClosed(ctx, client, trips) }()
		for range i % 4 {
			select {
			case <-trips:
			case err := <-errs:
				t.Fatalf("iteration %d: the data path failed before any close: %v", i, err)
			case <-ctx.Done():
				t.Fatalf("iteration %d: no round trip in 60 s", i)
			}
		}
		var closers sync.WaitGroup
		for _, id := range []*ID{client, server, client, server} {
			closers.Add(1)
			go func() {
				defer closers.Done()
				if err := id.Close(); err != nil {
					t.Errorf("iteration %d: Close: %v", i, err)
				}
			}()
		}
		closers.Wait()
		for range 2 {
			select {
			case err := <-errs:
				if !closedOrGone(err) {
					t.Fatalf("iteration %d: the data path ended with %v, want ErrClosed or a completion error", i, err)
				}
			case <-ctx.Done():
				t.Fatalf("iteration %d: a data-path goroutine still runs 60 s after Close", i)
			}
		}
		if n := earlyFrees.Load() - before; n != 0 {
			t.Fatalf("iteration %d: %d ids freed their buffers while their QP still existed", i, n)
		}
		b, err := client.RegisterBuffer(64)
		if !errors.Is(err, ErrClosed) || b != nil {
			t.Fatalf("RegisterBuffer after Close: %v, want ErrClosed", err)
		}
	}
	t.Logf("%d ids closed under a running prober and echo", 2*iterations)
}

// A closed buffer refuses copies and posts with ErrClosed, and a closed id
// refuses posts with ErrClosed, rather than touching freed memory.
func TestClosedBufferAndIDRefuseTheDataPath(t *testing.T) {
	client, server := rcPair(t, testAddr(t), nil)
	b, err := client.RegisterBuffer(16)
	if err != nil {
		t.Fatalf("RegisterBuffer: %v", err)
	}
	if err := b.Store(make([]byte, 17)); err == nil {
		t.Errorf("Store of 17 bytes into 16: no error")
	}
	if err := b.Close(); err != nil {
		t.Fatalf("Buffer.Close: %v", err)
	}
	if err := b.Store([]byte("x")); !errors.Is(err, ErrClosed) {
		t.Errorf("Store after Close: %v, want ErrClosed", err)
	}
	if _, err := b.Load(1); !errors.Is(err, ErrClosed) {
		t.Errorf("Load after Close: %v, want ErrClosed", err)
	}
	if err := client.PostSend(b, 1, 1); !errors.Is(err, ErrClosed) {
		t.Errorf("PostSend of a closed buffer: %v, want ErrClosed", err)
	}
	live, err := server.RegisterBuffer(16)
	if err != nil {
		t.Fatalf("RegisterBuffer: %v", err)
	}
	server.Close()
	if err := server.PostRecv(live, 1); !errors.Is(err, ErrClosed) {
		t.Errorf("PostRecv after the id's Close: %v, want ErrClosed", err)
	}
	if err := live.Store([]byte("x")); !errors.Is(err, ErrClosed) {
		t.Errorf("Store into a buffer of a closed id: %v, want ErrClosed", err)
	}
}

// queuedRequests is how many connect requests wait in a listener's queue.
func queuedRequests(l *ID) int {
	l.events.mu.Lock()
	defer l.events.mu.Unlock()
	n := 0
	for _, e := range l.events.items {
		if e.Type == ConnectRequest {
			n++
		}
	}
	return n
}

// Closing a listener that holds connect requests nobody took rejects them:
// their peers see REJECTED (by the consumer) at once, not UNREACHABLE at
// the CM's timeout, tens of seconds later.
func TestListenerCloseRejectsQueuedRequests(t *testing.T) {
	const n = 4
	ch := newChannel(t)
	qp := DefaultQPInit()
	l, port := listen(t, ch, testAddr(t), PSTCP, &qp)
	var clients []*ID
	for range n {
		c := dial(t, ch, testAddr(t), port, PSTCP, &qp)
		if err := c.StartConnect(ConnParam{}); err != nil {
			t.Fatalf("StartConnect: %v", err)
		}
		clients = append(clients, c)
	}
	deadline := time.Now().Add(60 * time.Second)
	for queuedRequests(l) < n {
		if time.Now().After(deadline) {
			t.Fatalf("the listener queued %d of %d connect requests in 60 s", queuedRequests(l), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	start := time.Now()
	if err := l.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	// Far longer than a reject takes; a request left to the CM's timeout
	// ends with UNREACHABLE, which the type check catches whatever the time.
	ctx := ctxFor(t, 3*time.Minute)
	for i, c := range clients {
		ev, err := c.NextEvent(ctx)
		if err != nil {
			t.Fatalf("client %d: no event after the listener closed: %v", i, err)
		}
		if ev.Type != Rejected || ev.Status != ConsumerReject {
			t.Fatalf("client %d: %v %v after the listener closed, want REJECTED (reason %d)", i, ev, time.Since(start), ConsumerReject)
		}
	}
	t.Logf("%d queued requests rejected %v after the listener's Close", n, time.Since(start))
}
