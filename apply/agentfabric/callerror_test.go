package agentfabric

import (
	"strings"
	"syscall"
	"testing"
)

func TestCallErrorSaysCallErrnoAndDetailOnce(t *testing.T) {
	for _, c := range []struct {
		e    CallError
		want string
	}{
		{CallError{Call: "rdma_create_ep", Errno: syscall.EADDRINUSE, Name: "EADDRINUSE", Message: "rdma_create_ep: address already in use (EADDRINUSE)"},
			"rdma_create_ep: address already in use (EADDRINUSE)"},
		{CallError{Call: "ibv_create_cq", Errno: syscall.EINVAL, Name: "EINVAL", Message: "ibv_create_cq: the QP needs 40064 completion entries, more than the device's max_cqe of 32767: invalid argument"},
			"ibv_create_cq: invalid argument (EINVAL): the QP needs 40064 completion entries, more than the device's max_cqe of 32767"},
		{CallError{Message: "the agent is stopping"}, "the agent is stopping"},
		// The hint after the errno, said once (it said "no such device
		// (ENODEV): no such device (ENODEV): this host...").
		{CallError{Call: "rdma_bind_addr", Errno: syscall.ENODEV, Name: "ENODEV", Message: "rdma_bind_addr: no such device (ENODEV): this host has no RDMA device"},
			"rdma_bind_addr: no such device (ENODEV): this host has no RDMA device"},
		{CallError{Call: "rdma_connect", Message: "rejected by the peer", Reason: "full"}, "rdma_connect: rejected by the peer (rejected: full)"},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.e, got, c.want)
		}
	}
}

func TestCallErrorSaysTheRejectReasonOnce(t *testing.T) {
	e := CallError{Call: "rdma_connect", Errno: 111, Name: "ECONNREFUSED", Reason: "rdmaform: listener.lim has reached max_connections = 2",
		Message: "rdma_connect: REJECTED (reason 28) with 54 bytes of private data: rdmaform: listener.lim has reached max_connections = 2"}
	if got := e.Error(); strings.Count(got, "has reached max_connections") != 1 {
		t.Errorf("%q", got)
	}
}
