//go:build linux && cgo && integration

package agent_test

import (
	"fmt"
	"os/exec"
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

// rdmaUDQP is the kernel's line for UD QP qpn of any process (`rdma
// resource show qp`), "" when it has none.
func rdmaUDQP(t *testing.T, qpn uint32) string {
	out, err := exec.Command("rdma", "resource", "show", "qp").CombinedOutput()
	if err != nil {
		t.Fatalf("rdma resource show qp: %v: %s", err, out)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, fmt.Sprintf(" lqpn %d ", qpn)) && strings.Contains(l, " type UD ") {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

// rdmaUDPQKey is the Q_Key the RDMA CM gives UD ids of the udp port space
// (RDMA_UDP_QKEY), which the SIDR reply carries.
const rdmaUDPQKey = 0x01234567

// UD made real: two UD endpoints probe the QP their SIDR reply names, the
// UD listener's own, which echoes each probe back to its sender: round
// trips with no loss for both, the remote QP and Q_Key in their status,
// and the listener's QP in the kernel while the listener lives, gone
// after its delete.
func TestUDEndpointsProbeTheListenersQP(t *testing.T) {
	p := startAgent(t)
	addr, port := testAddr(t), freePort()
	ud := &pb.QP{Type: "ud", MaxSendWr: 16, MaxRecvWr: 16, MaxSendSge: 1, MaxRecvSge: 1}
	lo := createListener(t, p, "listener.u", &pb.ListenerSpec{Address: addr, Port: port, PortSpace: "udp", Qp: ud, Accept: &pb.Accept{Echo: true}})
	lqp := lo.GetFacts().GetQpNum()
	if lqp == 0 || lo.GetFacts().GetQpType() != "ud" {
		t.Fatalf("the UD listener has no QP of its own: facts %v", lo.GetFacts())
	}
	if line := rdmaUDQP(t, lqp); line == "" || !strings.Contains(line, "state RTS") {
		t.Fatalf("the kernel does not show the listener's UD QP %d in RTS: %q", lqp, line)
	}
	const probes = 10
	createEndpoints(t, p, "endpoint.u", 2, func(int) *pb.EndpointSpec {
		return &pb.EndpointSpec{Address: addr, Port: port, PortSpace: "udp", Qp: ud,
			Probe: &pb.Probe{Interval: int64(100 * time.Millisecond), Size: 64, Timeout: int64(10 * time.Second)}}
	})
	objs := waitList(t, p, 2*time.Minute, fmt.Sprintf("both UD endpoints with %d probes answered", probes), func(objs []*pb.Object) bool {
		eps := byKind(objs, pb.Kind_ENDPOINT, "endpoint.u")
		n := 0
		for _, e := range eps {
			if e.GetProbe().GetReceived() >= probes || e.GetProbe().GetLost() > 0 {
				n++
			}
		}
		return len(eps) == 2 && n == 2
	})
	for _, e := range byKind(objs, pb.Kind_ENDPOINT, "endpoint.u") {
		pr, f := e.GetProbe(), e.GetFacts()
		if pr.GetLost() != 0 || pr.GetReceived() < probes || pr.GetMin() <= 0 || e.Status != pb.Status_ESTABLISHED {
			t.Errorf("%s: %s, probes %v, last error %v: want %d round trips and none lost", e.Address, e.Status, pr, e.GetLastError(), probes)
		}
		if f.GetRemoteQpNum() != lqp || f.GetRemoteQkey() != rdmaUDPQKey || f.GetQpType() != "ud" {
			t.Errorf("%s: remote QP %d Q_Key %#x (its own %d %s), want the listener's QP %d and Q_Key %#x",
				e.Address, f.GetRemoteQpNum(), f.GetRemoteQkey(), f.GetQpNum(), f.GetQpType(), lqp, rdmaUDPQKey)
		}
	}
	if line := rdmaUDQP(t, lqp); line == "" {
		t.Errorf("the listener's UD QP %d is gone from the kernel while the listener lives", lqp)
	}
	for _, a := range []string{"endpoint.u[0]", "endpoint.u[1]", "listener.u"} {
		if r, err := p.Delete(ctxFor(t, time.Minute), &pb.DeleteRequest{Address: a}); err != nil || !r.Existed {
			t.Fatalf("Delete %s: %v, %v", a, r, err)
		}
	}
	// The delete returns once the listener's id and QP are destroyed.
	if line := rdmaUDQP(t, lqp); line != "" {
		t.Errorf("the listener's UD QP is left after its delete: %s", line)
	}
}
