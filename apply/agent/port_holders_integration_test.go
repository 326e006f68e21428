//go:build linux && cgo && integration

package agent_test

import (
	"fmt"
	"os/exec"
	"strconv"
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

// A bind refused because another program holds the port (rping -s) names
// that program, from the kernel's resource tracking.
func TestRefusedBindNamesTheProgramThatHoldsThePort(t *testing.T) {
	p := startAgent(t)
	addr, port := testAddr(t), freePort()
	rping := exec.Command("rping", "-s", "-a", addr, "-p", strconv.Itoa(int(port)))
	if err := rping.Start(); err != nil {
		t.Fatalf("rping -s (rdmacm-utils): %v", err)
	}
	t.Cleanup(func() { rping.Process.Kill(); rping.Wait() })
	for deadline := time.Now().Add(time.Minute); len(linesWith(cmIDs(t), fmt.Sprintf("src-addr %s:%d ", addr, port))) == 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("rping does not listen on %d", port)
		}
	}
	ls, err := p.KernelListeners(ctxFor(t, time.Minute), &pb.KernelListenersRequest{})
	if err != nil || ls.Unavailable != "" {
		t.Fatalf("KernelListeners: %v %q", err, ls.GetUnavailable())
	}
	var named bool
	for _, l := range ls.Listeners {
		named = named || l.LocalAddr == fmt.Sprintf("%s:%d", addr, port) && l.Program() == fmt.Sprintf("rping (pid %d)", rping.Process.Pid)
	}
	if !named {
		t.Errorf("KernelListeners does not name rping on port %d: %v", port, ls.Listeners)
	}
	o, err := p.CreateListener(ctxFor(t, time.Minute), &pb.CreateListenerRequest{Address: "listener.busy", Token: "tok", Spec: &pb.ListenerSpec{Address: addr, Port: port}})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("rdma_create_ep: %s:%d (tcp) is bound by another program, not by this agent: rping (pid %d): address already in use", addr, port, rping.Process.Pid)
	if e := o.GetLastError(); o.Status != pb.Status_ERROR || e.GetErrnoName() != "EADDRINUSE" || e.GetMessage() != want {
		t.Errorf("status %s, last error %v; want %q", o.Status, e, want)
	}
}
