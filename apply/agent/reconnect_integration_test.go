//go:build linux && cgo && integration

package agent_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
)

// fullObject is address's object with its facts and history, or nil.
func fullObject(t *testing.T, p *agentProc, addr string) *pb.Object {
	t.Helper()
	r, err := p.List(ctxFor(t, time.Minute), &pb.ListRequest{Full: true, WithHistory: true})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	for _, o := range r.Objects {
		if o.Address == addr {
			return o
		}
	}
	return nil
}

// waitEstablishedOn waits until addr is established on a QP other than
// notQP, and returns it.
func waitEstablishedOn(t *testing.T, p *agentProc, addr string, notQP uint32) *pb.Object {
	t.Helper()
	var o *pb.Object
	waitList(t, p, 2*time.Minute, fmt.Sprintf("%s established on a QP other than %d", addr, notQP), func([]*pb.Object) bool {
		o = fullObject(t, p, addr)
		return o != nil && o.Status == pb.Status_ESTABLISHED && o.Facts.GetQpNum() != 0 && o.Facts.GetQpNum() != notQP
	})
	return o
}

// Reconnect on an established endpoint ends its connection and makes a
// new one at once, whatever its back-off (none, or ten minutes);
// Reconnect on a listener's accepted connection ends it, and its client
// makes it again by its own policy; a listener is refused.
func TestReconnectNowMakesTheConnectionAgain(t *testing.T) {
	addr, port := testAddr(t), freePort()
	p := startAgent(t)
	createListener(t, p, "listener.l", echoListener(addr, port, 0))
	slow := endpointSpec(addr, port)
	slow.Reconnect = &pb.Reconnect{MinBackoff: int64(10 * time.Minute), MaxBackoff: int64(20 * time.Minute)}
	fast := endpointSpec(addr, port)
	fast.Reconnect = &pb.Reconnect{MinBackoff: int64(100 * time.Millisecond), MaxBackoff: int64(time.Second)}
	for name, spec := range map[string]*pb.EndpointSpec{"endpoint.once": endpointSpec(addr, port), "endpoint.slow": slow, "endpoint.fast": fast} {
		if _, err := p.CreateEndpoint(ctxFor(t, time.Minute), &pb.CreateEndpointRequest{Address: name, Token: "tok-" + name, Spec: spec}); err != nil {
			t.Fatalf("CreateEndpoint %s: %v", name, err)
		}
	}
	for _, name := range []string{"endpoint.once", "endpoint.slow"} {
		before := waitEstablishedOn(t, p, name, 0)
		r, err := p.Reconnect(ctxFor(t, time.Minute), &pb.ReconnectRequest{Address: name})
		if err != nil {
			t.Fatalf("Reconnect %s: %v", name, err)
		}
		t.Logf("%s: %s", name, r.Done)
		after := waitEstablishedOn(t, p, name, before.Facts.QpNum)
		if after.Reconnects != before.Reconnects+1 || !hasEvent(after, "reconnect requested") {
			t.Errorf("%s: reconnects %d then %d; history %s", name, before.Reconnects, after.Reconnects, dumpHistory([]*pb.Object{after}))
		}
		t.Logf("%s: QP %d, then %d", name, before.Facts.QpNum, after.Facts.QpNum)
	}

	// The connection the listener accepted from endpoint.fast: its
	// remote address is the endpoint's local one.
	ep := waitEstablishedOn(t, p, "endpoint.fast", 0)
	var conn *pb.Object
	for _, o := range byKind(list(t, p), pb.Kind_CONNECTION, "listener.l/") {
		if o := fullObject(t, p, o.Address); o != nil && o.Facts.GetRemoteAddr() == ep.Facts.LocalAddr {
			conn = o
		}
	}
	if conn == nil {
		t.Fatalf("no connection of listener.l from %s", ep.Facts.LocalAddr)
	}
	if _, err := p.Reconnect(ctxFor(t, time.Minute), &pb.ReconnectRequest{Address: conn.Address}); err != nil {
		t.Fatalf("Reconnect %s: %v", conn.Address, err)
	}
	waitList(t, p, 2*time.Minute, conn.Address+" gone", func(objs []*pb.Object) bool {
		return len(byKind(objs, pb.Kind_CONNECTION, conn.Address)) == 0
	})
	again := waitEstablishedOn(t, p, "endpoint.fast", ep.Facts.QpNum)
	if again.Reconnects == 0 {
		t.Errorf("endpoint.fast: no reconnect counted after its connection was ended: %s", dumpHistory([]*pb.Object{again}))
	}

	_, err := p.Reconnect(ctxFor(t, time.Minute), &pb.ReconnectRequest{Address: "listener.l"})
	if status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), "is a listener") {
		t.Errorf("Reconnect of a listener: %v", err)
	}
}
