package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/apply"
	"github.com/rdmaform/rdmaform/config/addrs"
)

// One failure shared by many objects is reported once with the objects it
// hit; different failures, and a failure shared by two, one by one.
func TestApplyErrorsGroupTheSameFailure(t *testing.T) {
	ep := func(i int) addrs.Instance {
		return addrs.Instance{Resource: addrs.Resource{Kind: addrs.Endpoint, Name: "e"}, Key: addrs.IntKey(i)}
	}
	var errs []apply.OpError
	for _, i := range []int{14, 3, 12, 11, 10, 9, 8, 7, 6, 5, 4, 13, 15} {
		errs = append(errs, apply.OpError{Addr: ep(i), Op: "create",
			Err: fmt.Errorf("the agent's change stream ended before %s was established: EOF", ep(i))})
	}
	errs = append(errs,
		apply.OpError{Addr: ep(20), Op: "create", Err: errors.New("rdma_connect: connection refused (ECONNREFUSED)")},
		apply.OpError{Addr: ep(21), Op: "create", Err: errors.New("rdma_connect: connection refused (ECONNREFUSED)")},
		apply.OpError{Addr: ep(22), Op: "delete", Err: errors.New("rdma_connect: connection refused (ECONNREFUSED)")})
	var b strings.Builder
	writeApplyErrors(&b, errs)
	want := `
Error: endpoint.e[3]: create failed: the agent's change stream ended before endpoint.e[3] was established: EOF

  The same create failure for 12 more objects: endpoint.e[4], endpoint.e[5], endpoint.e[6], endpoint.e[7], endpoint.e[8], endpoint.e[9], endpoint.e[10], endpoint.e[11], endpoint.e[12], endpoint.e[13] and 2 more

Error: endpoint.e[20]: create failed: rdma_connect: connection refused (ECONNREFUSED)

Error: endpoint.e[21]: create failed: rdma_connect: connection refused (ECONNREFUSED)

Error: endpoint.e[22]: delete failed: rdma_connect: connection refused (ECONNREFUSED)
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}
