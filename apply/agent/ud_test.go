//go:build linux && cgo && integration

package agent_test

import (
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
		return countStatus(byKind(objs, pb.Kind_ENDPOINT, ""), pb.Status_ESTABLISHED) == 2 &&
			len(byKind(objs, pb.Kind_CONNECTION, "listener.u/")) == 2
	})
	for _, c := range byKind(list(t, p), pb.Kind_CONNECTION, "listener.u/") {
		if f := c.Facts; f == nil || f.Device == "" || f.LocalAddr == "" {
			t.Errorf("the answered UD request %s has no facts (device, local address): %v", c.Address, f)
		}
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
