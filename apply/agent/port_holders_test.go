package agent

import (
	"errors"
	"syscall"
	"testing"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/apply/agentfabric"
	"github.com/rdmaform/rdmaform/rdmacm"
)

// fakeListener registers a listener as created, without running it: no
// RDMA needed.
func fakeListener(t *testing.T, a *Agent, addr string, spec *pb.ListenerSpec, status pb.Status, listened bool) *listener {
	t.Helper()
	cfg, err := checkListener(spec)
	if err != nil {
		t.Fatal(err)
	}
	o := a.newObject(addr, "tok-"+addr, "", pb.Kind_LISTENER)
	l := &listener{obj: o, spec: spec, cfg: cfg, ready: make(chan struct{})}
	o.impl = l
	o.st.listenerSpec = spec
	o.st.record(status, "", "")
	if listened {
		o.st.facts = &pb.Facts{LocalAddr: spec.Address}
	}
	a.reg.add(o)
	return l
}

// clientError is the failure as apply shows it: the agent's last error
// read back by the client.
func clientError(err error) string {
	info := errorInfo(err)
	return (&agentfabric.CallError{Call: info.Call, Errno: syscall.Errno(info.Errno), Name: info.ErrnoName, Message: info.Message}).Error()
}

func TestFailedBindNamesTheListenerHoldingThePort(t *testing.T) {
	a := New(nil)
	fakeListener(t, a, "listener.loop@a", &pb.ListenerSpec{Address: "10.77.0.1", Port: 7610}, pb.Status_LISTENING, true)
	// None of these binds 10.77.0.1:7610 in the tcp port space.
	fakeListener(t, a, "listener.failed@c", &pb.ListenerSpec{Address: "10.77.0.1", Port: 7610}, pb.Status_ERROR, false)
	fakeListener(t, a, "listener.udp@c", &pb.ListenerSpec{Address: "10.77.0.1", Port: 7610, PortSpace: "udp"}, pb.Status_LISTENING, true)
	fakeListener(t, a, "listener.other@c", &pb.ListenerSpec{Address: "10.77.0.2", Port: 7610}, pb.Status_LISTENING, true)
	fakeListener(t, a, "listener.next@c", &pb.ListenerSpec{Address: "10.77.0.1", Port: 7611}, pb.Status_LISTENING, true)
	mine := fakeListener(t, a, "listener.loop@b", &pb.ListenerSpec{Address: "10.77.0.1", Port: 7610}, pb.Status_CREATING, false)

	err := a.namingPortHolders(mine, &rdmacm.OpError{Op: "rdma_create_ep", Err: syscall.EADDRINUSE})
	if !errors.Is(err, syscall.EADDRINUSE) {
		t.Errorf("%v: the errno is lost", err)
	}
	want := "rdma_create_ep: address already in use (EADDRINUSE): 10.77.0.1:7610 is held by listener.loop@a"
	if got := clientError(err); got != want {
		t.Errorf("apply would say\n%q, want\n%q", got, want)
	}

	// Another errno is left as it is.
	noDevice := &rdmacm.OpError{Op: "rdma_create_ep", Err: syscall.ENODEV}
	if err := a.namingPortHolders(mine, noDevice); err != noDevice {
		t.Errorf("ENODEV became %v", err)
	}
}

// A wildcard on either side holds the port for every address; rdma_cm
// says EADDRNOTAVAIL then.
func TestFailedBindNamesAWildcardHolder(t *testing.T) {
	a := New(nil)
	fakeListener(t, a, "listener.any@a", &pb.ListenerSpec{Address: "::", Port: 7610}, pb.Status_LISTENING, true)
	mine := fakeListener(t, a, "listener.loop@b", &pb.ListenerSpec{Address: "10.77.0.1", Port: 7610}, pb.Status_CREATING, false)
	err := a.namingPortHolders(mine, &rdmacm.OpError{Op: "rdma_create_ep", Err: syscall.EADDRNOTAVAIL})
	want := "rdma_create_ep: cannot assign requested address (EADDRNOTAVAIL): 10.77.0.1:7610 is held by listener.any@a (on [::]:7610)"
	if got := clientError(err); got != want {
		t.Errorf("apply would say\n%q, want\n%q", got, want)
	}
}

// A port none of this agent's listeners holds is bound by another program:
// the error names the address, the port and its space, and how to find
// the holder.
func TestFailedBindByAnotherProgramNamesThePort(t *testing.T) {
	a := New(nil)
	mine := fakeListener(t, a, "listener.busy", &pb.ListenerSpec{Address: "10.77.0.1", Port: 7785}, pb.Status_CREATING, false)
	err := a.namingPortHolders(mine, &rdmacm.OpError{Op: "rdma_create_ep", Err: syscall.EADDRINUSE})
	if !errors.Is(err, syscall.EADDRINUSE) {
		t.Errorf("%v: the errno is lost", err)
	}
	want := `rdma_create_ep: address already in use (EADDRINUSE): 10.77.0.1:7785 (tcp) is bound by another program, not by this agent ("rdma resource show cm_id" names its process)`
	if got := clientError(err); got != want {
		t.Errorf("apply would say\n%q, want\n%q", got, want)
	}
	// EADDRNOTAVAIL (the address is not this host's) says nothing of a holder.
	notHere := &rdmacm.OpError{Op: "rdma_create_ep", Err: syscall.EADDRNOTAVAIL}
	if err := a.namingPortHolders(mine, notHere); err != notHere {
		t.Errorf("EADDRNOTAVAIL became %v", err)
	}
}
