package tui

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// floodSource sends n updates cycling over a few objects as fast as it can,
// then waits for cancellation.
type floodSource struct {
	objects, n int
	sent       chan struct{}
}

func (s floodSource) Watch(ctx context.Context, snapshot func([]Object, AgentInfo), update func(Update)) error {
	snapshot(nil, AgentInfo{})
	for i := range s.n {
		update(Update{Object: Object{Address: fmt.Sprintf("endpoint.e[%d]", i%s.objects), Reconnects: i}})
	}
	close(s.sent)
	<-ctx.Done()
	return ctx.Err()
}

func TestRelayCoalescesPerObjectWhileTheScreenIsBusy(t *testing.T) {
	src := floodSource{objects: 100, n: 200_000, sent: make(chan struct{})}
	r := newRelay(src, time.Second, time.Second, 0, time.Now)
	r.run()
	defer r.stop()
	<-src.sent // nobody has collected anything yet

	if n := r.pendingLen(); n != 100 {
		t.Fatalf("pending = %d objects after 200,000 updates to 100, want 100", n)
	}
	msg := r.next().(feedMsg)
	if msg.snapshot == nil || !msg.link.up {
		t.Errorf("first batch has snapshot %v, link %+v; want the snapshot and the link up", msg.snapshot != nil, msg.link)
	}
	if len(msg.updates) != 100 {
		t.Fatalf("batch has %d updates, want 100", len(msg.updates))
	}
	for _, u := range msg.updates {
		var i int
		fmt.Sscanf(u.Object.Address, "endpoint.e[%d]", &i)
		if want := 200_000 - 100 + i; u.Object.Reconnects != want {
			t.Errorf("%s carries update %d, want the latest, %d", u.Object.Address, u.Object.Reconnects, want)
		}
	}
}

func TestRelaySnapshotSupersedesEarlierUpdates(t *testing.T) {
	r := newRelay(nil, time.Second, time.Second, 0, time.Now)
	r.gotUpdate(Update{Object: Object{Address: "endpoint.a"}})
	r.gotSnapshot([]Object{{Address: "endpoint.b"}}, AgentInfo{PID: 1})
	r.gotUpdate(Update{Object: Object{Address: "endpoint.b", Status: StatusEstablished}})
	msg := r.take()
	if msg.snapshot == nil || len(msg.snapshot.objects) != 1 {
		t.Fatalf("snapshot = %+v", msg.snapshot)
	}
	if len(msg.updates) != 1 || msg.updates[0].Object.Address != "endpoint.b" {
		t.Errorf("updates = %+v, want only the one after the snapshot", msg.updates)
	}
	if again := r.take(); again.snapshot != nil || len(again.updates) != 0 {
		t.Errorf("second take = %+v, want nothing new", again)
	}
}

func TestRelayReconnectsWithGrowingBackoff(t *testing.T) {
	src := newFakeSource(nil)
	src.refuse.Store(true)
	r := newRelay(src, 10*time.Millisecond, 40*time.Millisecond, 0, time.Now)
	start := time.Now()
	r.run()
	msg := r.next().(feedMsg)
	if msg.link.up || msg.link.err != errRefused {
		t.Fatalf("link = %+v, want down with the source's error", msg.link)
	}
	// Attempts at 0, 10, 30, 70, 110 ms: the wait doubles up to 40 ms.
	for src.watches.Load() < 5 {
		time.Sleep(time.Millisecond)
	}
	if el := time.Since(start); el < 70*time.Millisecond {
		t.Errorf("5 attempts took %v, want at least 70ms of back-off", el)
	}
	r.stop()
	n := src.watches.Load()
	time.Sleep(50 * time.Millisecond)
	if src.watches.Load() != n {
		t.Error("the relay kept calling Watch after stop")
	}
}

func TestRelayStopBeforeRunAndTwice(t *testing.T) {
	r := newRelay(newFakeSource(nil), time.Second, time.Second, 0, time.Now)
	r.stop()
	r.stop()
	if msg := r.next(); msg != nil {
		t.Errorf("next after stop = %v, want nil", msg)
	}
}

// The agent's socket is local: a restarted agent must be seen within
// about 2 s, not after a backoff grown to half a minute.
func TestDefaultBackoffIsShort(t *testing.T) {
	m := New(Options{})
	defer m.Close()
	if m.relay.minBackoff != time.Second || m.relay.maxBackoff != 2*time.Second {
		t.Errorf("backoff %v..%v, want 1s..2s", m.relay.minBackoff, m.relay.maxBackoff)
	}
}
