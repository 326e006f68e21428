package tui

import "testing"

// The detail's last error names the errno as apply and rdma-core's users
// do, and says the call and the errno once, whatever the agent's message
// repeats of them.
func TestErrorTextNamesTheErrnoAndSaysItOnce(t *testing.T) {
	for _, tc := range []struct {
		in   ErrorInfo
		want string
	}{
		{ // a rejection: the event error maps to ECONNREFUSED
			ErrorInfo{Call: "rdma_connect", Errno: 111, ErrnoName: "ECONNREFUSED", Message: "rdma_connect: REJECTED (reason 8: invalid service ID: no listener on that port)"},
			"rdma_connect: connection refused (ECONNREFUSED): REJECTED (reason 8: invalid service ID: no listener on that port)",
		},
		{ // rdmacm.OpError already names the errno
			ErrorInfo{Call: "rdma_create_ep", Errno: 98, ErrnoName: "EADDRINUSE", Message: "rdma_create_ep: address already in use (EADDRINUSE)"},
			"rdma_create_ep: address already in use (EADDRINUSE)",
		},
		{ // and may add a hint after it
			ErrorInfo{Call: "rdma_resolve_addr", Errno: 19, ErrnoName: "ENODEV", Message: "rdma_resolve_addr: no such device (ENODEV): no RDMA device serves this address"},
			"rdma_resolve_addr: no such device (ENODEV): no RDMA device serves this address",
		},
		{ // the agent's own errors end with the wrapped errno's text
			ErrorInfo{Call: "DEVICE_REMOVAL", Errno: 19, ErrnoName: "ENODEV", Message: "DEVICE_REMOVAL: device rxe0 was removed: no such device"},
			"DEVICE_REMOVAL: no such device (ENODEV): device rxe0 was removed",
		},
		{ // a timeout
			ErrorInfo{Call: "rdma_resolve_route", Errno: 110, ErrnoName: "ETIMEDOUT", Message: "rdma_resolve_route: ROUTE_ERROR (status -110)"},
			"rdma_resolve_route: connection timed out (ETIMEDOUT): ROUTE_ERROR (status -110)",
		},
		{ // no errno: the message as it is, without the call twice
			ErrorInfo{Call: "rdma_getaddrinfo", Message: `rdma_getaddrinfo("x", "7471"): Name or service not known (EAI_NONAME)`},
			`rdma_getaddrinfo("x", "7471"): Name or service not known (EAI_NONAME)`,
		},
		{ // an errno this system has no name for
			ErrorInfo{Call: "ibv_post_send", Errno: 4242},
			"ibv_post_send: errno 4242",
		},
	} {
		if got := errorText(&tc.in); got != tc.want {
			t.Errorf("errorText(%+v)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}
