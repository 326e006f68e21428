//go:build linux && cgo && integration

package rdmacm

import (
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/rdmacm/rdmatest"
)

// An active endpoint with a source address binds to it: both sides see
// the connection come from there, not from the address the route picks.
// A source address no interface holds fails, naming the call and errno.
func TestDialFromSourceAddress(t *testing.T) {
	src := rdmatest.SecondAddr(t)
	ch := newChannel(t)
	qp := DefaultQPInit()
	l, port := listen(t, ch, testAddr(t), PSTCP, &qp)
	ctx := ctxFor(t, 20*time.Second)
	connectFrom := func(source string) (client, server Facts) {
		ai := addrInfo(t, testAddr(t), port, Hints{Flags: NumericHost, PortSpace: PSTCP, QPType: RC, Source: source})
		id, err := Dial(ctx, ai, nil, &qp, ch, 0)
		if err != nil {
			t.Fatalf("Dial from %q: %v", source, err)
		}
		defer id.Close()
		accepted := make(chan *ID, 1)
		go func() {
			req, _, err := l.GetRequest(ctx)
			if err != nil {
				accepted <- nil
				return
			}
			req.Accept(ctx, ConnParam{})
			accepted <- req
		}()
		if _, err := id.Connect(ctx, ConnParam{}); err != nil {
			t.Fatalf("Connect from %q: %v", source, err)
		}
		req := <-accepted
		if req == nil {
			t.Fatal("no connect request")
		}
		defer req.Close()
		if client, err = id.Facts(); err != nil {
			t.Fatal(err)
		}
		if server, err = req.Facts(); err != nil {
			t.Fatal(err)
		}
		id.Disconnect()
		req.Disconnect()
		return client, server
	}
	want := netip.MustParseAddr(src)
	c, s := connectFrom(src)
	if c.Local.Addr() != want || s.Remote.Addr() != want {
		t.Fatalf("with source %s: client local %v, server sees %v", src, c.Local, s.Remote)
	}
	c2, _ := connectFrom("")
	if c2.Local.Addr() == want {
		t.Fatalf("without a source the route should pick %s, got %v", testAddr(t), c2.Local)
	}
	t.Logf("from %s: client %v -> %v (server sees %v); without a source: from %v", src, c.Local, c.Remote, s.Remote, c2.Local)

	// 10.77.9.9 is on the test subnet but held by no interface.
	ai, err := GetAddrInfo(testAddr(t), port, &Hints{Flags: NumericHost, PortSpace: PSTCP, QPType: RC, Source: "10.77.9.9"})
	if err == nil {
		defer ai.Close()
		_, err = Dial(ctx, ai, nil, &qp, ch, 0)
	}
	var oe *OpError
	var ee *EventError
	if !errors.As(err, &oe) && !errors.As(err, &ee) {
		t.Fatalf("a source address no interface holds: %v (%T), want the failed call and its errno", err, err)
	}
	t.Logf("from an address no interface holds: %v", err)
	if _, err := GetAddrInfo(testAddr(t), port, &Hints{Flags: Passive, PortSpace: PSTCP, Source: src}); err == nil {
		t.Fatal("a passive address info accepted a source address")
	}
}
