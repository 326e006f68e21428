//go:build linux && cgo && integration

package agent_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
)

// A UD exchange has no connection to end: rdma_disconnect succeeds on it
// but no DISCONNECTED follows, so deleting a UD endpoint or a listener
// with UD requests answered must not wait for one (it waited the 2 s
// disconnect bound each, and a destroy batching them reported every
// object as taking 2 s).
func TestUDEndpointAndListenerDeleteWithoutWaiting(t *testing.T) {
	p := startAgent(t)
	addr, port := testAddr(t), freePort()
	ud := &pb.QP{Type: "ud", MaxSendWr: 4, MaxRecvWr: 4, MaxSendSge: 1, MaxRecvSge: 1}
	createListener(t, p, "listener.u", &pb.ListenerSpec{Address: addr, Port: port, PortSpace: "udp", Qp: ud, Accept: &pb.Accept{}})
	createEndpoints(t, p, "endpoint.u", 2, func(int) *pb.EndpointSpec {
		return &pb.EndpointSpec{Address: addr, Port: port, PortSpace: "udp", Qp: ud}
	})
	waitList(t, p, time.Minute, "two UD endpoints established and two requests answered", func(objs []*pb.Object) bool {
		l := byKind(objs, pb.Kind_LISTENER, "listener.u")
		return countStatus(byKind(objs, pb.Kind_ENDPOINT, ""), pb.Status_ESTABLISHED) == 2 && len(l) == 1 && l[0].AcceptedTotal == 2
	})
	// An answered UD request is over: nothing keeps its id or QP (they
	// piled up with every endpoint made and destroyed).
	if n := len(byKind(list(t, p), pb.Kind_CONNECTION, "listener.u/")); n != 0 {
		t.Errorf("the listener keeps %d answered UD requests as connections", n)
	}
	if ids := linesWith(cmIDs(t), fmt.Sprintf(":%d ", port)); len(ids) != 3 {
		t.Errorf("%d cm_ids on port %d, want the listener's and the two endpoints':\n%s", len(ids), port, strings.Join(ids, "\n"))
	}
	for _, addr := range []string{"endpoint.u[0]", "listener.u"} {
		start := time.Now()
		r, err := p.Delete(ctxFor(t, time.Minute), &pb.DeleteRequest{Address: addr})
		if err != nil || !r.Existed {
			t.Fatalf("Delete %s: %v, %v", addr, r, err)
		}
		// The bound is well below the 2 s a wait for DISCONNECTED took and
		// well above a delete's usual tens of milliseconds under TCG.
		if d := time.Since(start); d > time.Second {
			t.Errorf("deleting %s took %v: it waited for a DISCONNECTED that a UD id never gets", addr, d.Round(time.Millisecond))
		}
	}
	objs := list(t, p)
	if n := len(byKind(objs, pb.Kind_CONNECTION, "listener.u/")); n != 0 {
		t.Errorf("%d of the listener's UD requests are left after its delete", n)
	}
}

// A probe toward a listener that does not echo is never taken (the peer
// posts no receive, and RNR retries do not end): the prober keeps one send
// in flight, so the endpoint is degraded, not failed with
// rdma_post_send's ENOMEM once its small send queue is full.
func TestProbeTowardANonEchoingListenerKeepsOneSendInFlight(t *testing.T) {
	p := startAgent(t)
	addr, port := testAddr(t), freePort()
	createListener(t, p, "listener.quiet", &pb.ListenerSpec{Address: addr, Port: port, Qp: smallQP(), Accept: &pb.Accept{}})
	createEndpoints(t, p, "endpoint.q", 1, func(int) *pb.EndpointSpec {
		s := endpointSpec(addr, port)
		s.Qp = &pb.QP{Type: "rc", MaxSendWr: 2, MaxRecvWr: 2, MaxSendSge: 1, MaxRecvSge: 1}
		s.Probe = &pb.Probe{Interval: int64(50 * time.Millisecond), Size: 64, Timeout: int64(40 * time.Millisecond)}
		return s
	})
	waitList(t, p, time.Minute, "endpoint.q[0] degraded by lost probes", func(objs []*pb.Object) bool {
		e := byKind(objs, pb.Kind_ENDPOINT, "endpoint.q[0]")
		return len(e) == 1 && e[0].Status == pb.Status_DEGRADED
	})
	time.Sleep(time.Second) // 20 intervals: ten times the send queue
	e := byKind(list(t, p), pb.Kind_ENDPOINT, "endpoint.q[0]")
	if len(e) != 1 || e[0].Status != pb.Status_DEGRADED || e[0].LastError.GetErrnoName() == "ENOMEM" {
		t.Fatalf("endpoint.q[0]: %v, last error %v", e[0].GetStatus(), e[0].GetLastError())
	}
}
