//go:build linux && cgo && integration

package agent_test

import (
	"strings"
	"testing"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/rdmacm/rdmatest"
)

// An endpoint with a source address connects from it: its own facts and
// the listener's accepted connection both say so. One whose source no
// interface holds ends in error, naming the call and errno.
func TestEndpointSourceAddress(t *testing.T) {
	src := rdmatest.SecondAddr(t)
	p := startAgent(t)
	addr, port := testAddr(t), freePort()
	createListener(t, p, "listener.src", echoListener(addr, port, 0))
	createEndpoints(t, p, "endpoint.from", 2, func(i int) *pb.EndpointSpec {
		s := endpointSpec(addr, port)
		if i == 0 {
			s.SourceAddress = src
		} else {
			s.SourceAddress = "10.77.9.9" // on the subnet, held by no interface
		}
		return s
	})
	objs := waitList(t, p, time.Minute, "endpoint.from[0] established, endpoint.from[1] failed", func(objs []*pb.Object) bool {
		var ok0, ok1 bool
		for _, o := range objs {
			switch o.Address {
			case "endpoint.from[0]":
				ok0 = o.Status == pb.Status_ESTABLISHED
			case "endpoint.from[1]":
				ok1 = o.Status == pb.Status_ERROR || o.Status == pb.Status_REJECTED
			}
		}
		return ok0 && ok1
	})
	var conns []string
	for _, o := range objs {
		switch {
		case o.Address == "endpoint.from[0]":
			if o.Facts == nil || !strings.HasPrefix(o.Facts.LocalAddr, src+":") {
				t.Errorf("endpoint.from[0] connected from %v, want %s", o.Facts.GetLocalAddr(), src)
			}
		case o.Address == "endpoint.from[1]":
			if e := o.LastError; e == nil || e.Call == "" || e.Errno == 0 {
				t.Errorf("endpoint.from[1]: last error %v, want the call and errno", e)
			} else {
				t.Logf("endpoint.from[1]: %s: %s (errno %d)", e.Call, e.Message, e.Errno)
			}
		case o.Kind == pb.Kind_CONNECTION && o.Facts != nil:
			conns = append(conns, o.Facts.RemoteAddr)
		}
	}
	if len(conns) != 1 || !strings.HasPrefix(conns[0], src+":") {
		t.Errorf("the listener's connections come from %v, want one from %s", conns, src)
	}
}
