//go:build linux && cgo && integration

package agent_test

import (
	"testing"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/rdmacm"
)

func u32(v uint32) *uint32 { return &v }
func boolp(v bool) *bool   { return &v }

// deviceRdAtoms are the test device's max_qp_rd_atom and
// max_qp_init_rd_atom, as ibv_query_device reports them.
func deviceRdAtoms(t *testing.T) (resp, init uint32) {
	devs, err := rdmacm.Devices()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range devs {
		if d.Name == testDevice(t) {
			return uint32(min(d.Limits.MaxQPRdAtom, 254)), uint32(min(d.Limits.MaxQPInitRdAtom, 254))
		}
	}
	t.Fatalf("no device %s among %v", testDevice(t), devs)
	return 0, 0
}

// The options reach the connected QPs, as ibv_query_qp reads them back:
// the endpoint's type of service is its QP's traffic class (and, through
// the connect request, the accepted QP's), each side's ack_timeout its
// QP's local ACK timeout. Responder resources and initiator depth left
// out are the device's limits on both sides, so RDMA READs and atomics
// can flow; given, they are what was given. reuse_address is set on both
// sides without refusal (its effect, a shared port, needs ids that do not
// listen, which the agent does not make).
func TestOptionsAndRdAtomsReachTheQP(t *testing.T) {
	p := startAgent(t)
	addr, port := testAddr(t), freePort()
	devResp, devInit := deviceRdAtoms(t)
	t.Logf("%s: max_qp_rd_atom %d, max_qp_init_rd_atom %d", testDevice(t), devResp, devInit)
	if devResp == 0 || devInit == 0 {
		t.Fatalf("the device allows no RDMA READ: max_qp_rd_atom %d, max_qp_init_rd_atom %d", devResp, devInit)
	}

	l := echoListener(addr, port, 0)
	l.Accept.AutoResponderResources, l.Accept.AutoInitiatorDepth = true, true
	l.Options = &pb.CMOptions{AckTimeout: u32(12), ReuseAddress: boolp(true)}
	createListener(t, p, "listener.opts", l)

	tuned := endpointSpec(addr, port)
	tuned.Options = &pb.CMOptions{TypeOfService: u32(106), AckTimeout: u32(14), ReuseAddress: boolp(true)}
	tuned.Connect = &pb.Connect{AutoResponderResources: true, AutoInitiatorDepth: true, RetryCount: 7, RnrRetryCount: 7}
	tuned.Probe = probe100ms()
	plain := endpointSpec(addr, port)
	plain.Connect = &pb.Connect{ResponderResources: 1, InitiatorDepth: 1, RetryCount: 7, RnrRetryCount: 7}
	createEndpoints(t, p, "endpoint.tuned", 1, func(int) *pb.EndpointSpec { return tuned })
	createEndpoints(t, p, "endpoint.plain", 1, func(int) *pb.EndpointSpec { return plain })

	objs := waitList(t, p, time.Minute, "both established, 3 probes answered, both accepted connections with QP attributes", func(objs []*pb.Object) bool {
		e := byKind(objs, pb.Kind_ENDPOINT, "endpoint.tuned")
		conns := byKind(objs, pb.Kind_CONNECTION, "listener.opts/conn/")
		if len(e) != 1 || e[0].Probe == nil || e[0].Probe.Received < 3 || countStatus(byKind(objs, pb.Kind_ENDPOINT, ""), pb.Status_ESTABLISHED) != 2 || len(conns) != 2 {
			return false
		}
		for _, c := range conns {
			if c.Status != pb.Status_ESTABLISHED || c.GetFacts().GetQpAttrs() == nil {
				return false
			}
		}
		return true
	})
	attrs := func(o *pb.Object) *pb.QPAttrs {
		a := o.GetFacts().GetQpAttrs()
		if a == nil {
			t.Fatalf("%s has no QP attributes: facts %v", o.Address, o.Facts)
		}
		t.Logf("%s (QP %d): responder_resources %d, initiator_depth %d, traffic_class %d, ack_timeout %d", o.Address, o.Facts.QpNum,
			a.GetResponderResources(), a.GetInitiatorDepth(), a.GetTrafficClass(), a.GetAckTimeout())
		return a
	}
	e := attrs(byKind(objs, pb.Kind_ENDPOINT, "endpoint.tuned")[0])
	if e.TrafficClass == nil || *e.TrafficClass != 106 || e.GetAckTimeout() != 14 {
		t.Errorf("endpoint.tuned's QP: traffic class %d (set: %v), ACK timeout %d; want 106 and 14", e.GetTrafficClass(), e.TrafficClass != nil, e.GetAckTimeout())
	}
	if e.GetResponderResources() != devResp || e.GetInitiatorDepth() != devInit {
		t.Errorf("endpoint.tuned's QP: responder_resources %d, initiator_depth %d; want the device's %d and %d",
			e.GetResponderResources(), e.GetInitiatorDepth(), devResp, devInit)
	}
	pl := attrs(byKind(objs, pb.Kind_ENDPOINT, "endpoint.plain")[0])
	if pl.GetResponderResources() != 1 || pl.GetInitiatorDepth() != 1 || pl.GetTrafficClass() == 106 || pl.GetAckTimeout() == 14 {
		t.Errorf("endpoint.plain's QP: %v; want 1 and 1, and neither the other's traffic class nor its ACK timeout", pl)
	}

	// The accepted side: the listener's ACK timeout on both, the least of
	// the offer and the device's limits.
	byRemote := map[string]*pb.Object{}
	for _, c := range byKind(objs, pb.Kind_CONNECTION, "listener.opts/conn/") {
		byRemote[c.Facts.RemoteAddr] = c
	}
	for _, ep := range []string{"endpoint.tuned", "endpoint.plain"} {
		o := byKind(objs, pb.Kind_ENDPOINT, ep)[0]
		c := byRemote[o.Facts.LocalAddr]
		if c == nil {
			t.Fatalf("no accepted connection from %s (%s) among %v", ep, o.Facts.LocalAddr, byRemote)
		}
		a := attrs(c)
		if a.GetAckTimeout() != 12 {
			t.Errorf("%s's accepted QP: ACK timeout %d, want the listener's 12", ep, a.GetAckTimeout())
		}
		wantResp, wantInit := devResp, devInit
		if ep == "endpoint.plain" {
			wantResp, wantInit = 1, 1
		}
		if a.GetResponderResources() != wantResp || a.GetInitiatorDepth() != wantInit {
			t.Errorf("%s's accepted QP: responder_resources %d, initiator_depth %d; want %d and %d", ep, a.GetResponderResources(), a.GetInitiatorDepth(), wantResp, wantInit)
		}
		if ep == "endpoint.tuned" && a.GetTrafficClass() != 106 {
			t.Errorf("the accepted QP of endpoint.tuned: traffic class %d, want the request's 106", a.GetTrafficClass())
		}
	}
}

// ipv6_only reaches the kernel's bind: with it, a listener on :: leaves
// the port's IPv4 side to another listener; without it (Linux's default,
// bindv6only 0), :: takes both families and the IPv4 listener cannot bind.
func TestIPv6OnlyListenerSharesItsPortWithIPv4(t *testing.T) {
	p := startAgent(t)
	addr := testAddr(t)
	shared, taken := freePort(), freePort()
	createListener(t, p, "listener.v6only", &pb.ListenerSpec{Address: "::", Port: shared, Options: &pb.CMOptions{Ipv6Only: boolp(true)}})
	createListener(t, p, "listener.v4", &pb.ListenerSpec{Address: addr, Port: shared})

	createListener(t, p, "listener.both", &pb.ListenerSpec{Address: "::", Port: taken, Options: &pb.CMOptions{Ipv6Only: boolp(false)}})
	o, err := p.CreateListener(ctxFor(t, 30*time.Second), &pb.CreateListenerRequest{Address: "listener.v4b", Token: "tok-v4b", Spec: &pb.ListenerSpec{Address: addr, Port: taken}})
	if err == nil && o.Status == pb.Status_LISTENING {
		t.Fatalf("an IPv4 listener on the port of :: without ipv6_only listens: the option did not reach the bind")
	}
	t.Logf("the IPv4 listener on the port :: holds with both families: %v %v", err, o.GetLastError())
}
