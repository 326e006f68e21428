//go:build linux && cgo && integration

package agent_test

import (
	"fmt"
	"testing"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
)

// A listener's bind refused by the kernel names the listener of this
// agent that holds the port: the same address (EADDRINUSE), or a wildcard
// of the other family (EADDRNOTAVAIL).
func TestRefusedBindOnTheFabricNamesTheHolder(t *testing.T) {
	p := startAgent(t)
	addr := testAddr(t)
	same, wild := freePort(), freePort()
	createListener(t, p, "listener.loop@a", &pb.ListenerSpec{Address: addr, Port: same})
	createListener(t, p, "listener.any@a", &pb.ListenerSpec{Address: "::", Port: wild})
	for _, c := range []struct {
		name      string
		spec      *pb.ListenerSpec
		errnoName string
		message   string
	}{
		{"listener.loop@b", &pb.ListenerSpec{Address: addr, Port: same}, "EADDRINUSE",
			fmt.Sprintf("rdma_create_ep: %s:%d is held by listener.loop@a: address already in use", addr, same)},
		{"listener.v4@b", &pb.ListenerSpec{Address: addr, Port: wild}, "EADDRNOTAVAIL",
			fmt.Sprintf("rdma_create_ep: %s:%d is held by listener.any@a (on [::]:%d): cannot assign requested address", addr, wild, wild)},
	} {
		o, err := p.CreateListener(ctxFor(t, 30*time.Second), &pb.CreateListenerRequest{Address: c.name, Token: "tok", Spec: c.spec})
		if err != nil {
			t.Fatalf("CreateListener %s: %v", c.name, err)
		}
		if e := o.GetLastError(); o.Status != pb.Status_ERROR || e.GetErrnoName() != c.errnoName || e.GetCall() != "rdma_create_ep" || e.GetMessage() != c.message {
			t.Errorf("%s: status %s, last error %v; want %s and %q", c.name, o.Status, e, c.errnoName, c.message)
		}
	}
}
