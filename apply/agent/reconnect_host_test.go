//go:build !integration

package agent

import (
	"context"
	"slices"
	"testing"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
)

// These tests connect through librdmacm inside the test process. In the
// testbed that opens the device's verbs context for the life of the
// process, and `rdma link delete` (TestDeviceRemovalUnderARunningAgent)
// would then wait for the test binary to exit: they run on the host only,
// where every connect fails for want of a device. The testbed covers the
// same through an agent process (reconnect_integration_test.go).

// waitObject polls address's object until ok says so, within a generous
// bound.
func waitObject(t *testing.T, a *Agent, addr string, what string, ok func(*pb.Object) bool) *pb.Object {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		objs := a.List(true, true, &pb.Filter{Prefixes: []string{addr}})
		for _, o := range objs {
			if o.Address == addr && ok(o) {
				return o
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not %s within 60s: %v", addr, what, objs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// An endpoint whose connect failed for good (no reconnect policy: on
// this host, with no RDMA device, every connect fails; in the testbed,
// 192.0.2.1 is not reached) connects again when asked, at once: a second
// connect, counted as a reconnect. The service is called as gRPC calls
// it, without a socket.
func TestReconnectEndpointThatGaveUpConnectsAgain(t *testing.T) {
	a := New(nil)
	defer a.Close()
	svc := &service{agent: a}
	const addr = "endpoint.r"
	if _, err := svc.CreateEndpoint(context.Background(), &pb.CreateEndpointRequest{Address: addr, Token: "t",
		Spec: &pb.EndpointSpec{Address: "192.0.2.1", Port: 7471}}); err != nil {
		t.Fatal(err)
	}
	connects := func(o *pb.Object) int {
		return len(slices.DeleteFunc(slices.Clone(o.History), func(h *pb.HistoryEvent) bool { return h.Name != "connecting" }))
	}
	before := waitObject(t, a, addr, "failed", func(o *pb.Object) bool { return o.Status == pb.Status_ERROR })
	if n := connects(before); n != 1 || before.Reconnects != 0 {
		t.Fatalf("before: %d connects, %d reconnects", n, before.Reconnects)
	}
	r, err := svc.Reconnect(context.Background(), &pb.ReconnectRequest{Address: addr})
	if err != nil {
		t.Fatal(err)
	}
	if r.Done != addr+" connects again now" {
		t.Errorf("done: %q", r.Done)
	}
	after := waitObject(t, a, addr, "connected again", func(o *pb.Object) bool { return connects(o) == 2 && o.Status == pb.Status_ERROR })
	if after.Reconnects != 1 {
		t.Errorf("after: %d reconnects, want 1", after.Reconnects)
	}
}
