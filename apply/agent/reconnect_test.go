package agent

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/apply/agent/client"
)

// What has no connection of its own to make again is refused, saying
// why, as is an address the agent does not hold.
func TestReconnectRefusesWhatHasNoConnection(t *testing.T) {
	a := New(nil)
	defer a.Close()
	svc := &service{agent: a}
	fakeObject(a, "listener.l", "", pb.Kind_LISTENER, 0)
	pd := a.newObject("protection_domain.p", "tok", "", pb.Kind_PROTECTION_DOMAIN)
	close(pd.done)
	a.reg.add(pd)
	for _, tc := range []struct {
		addr string
		code codes.Code
		want string
	}{
		{"listener.l", codes.FailedPrecondition, "listener.l is a listener: it has no connection of its own to make again; reconnect one of its accepted connections (listener.l/conn/N)"},
		{"protection_domain.p", codes.FailedPrecondition, "protection_domain.p is a protection domain: it has no connection to make again"},
		{"endpoint.nope", codes.NotFound, "endpoint.nope does not exist on this agent"},
	} {
		_, err := svc.Reconnect(context.Background(), &pb.ReconnectRequest{Address: tc.addr})
		if status.Code(err) != tc.code || !strings.Contains(client.Words(err), tc.want) {
			t.Errorf("%s: %v (%s), want %s: %q", tc.addr, status.Code(err), client.Words(err), tc.code, tc.want)
		}
	}
}

// An endpoint still connecting is refused: the connect under way is what
// a reconnect would start.
func TestReconnectRefusesAnEndpointConnecting(t *testing.T) {
	a := New(nil)
	defer a.Close()
	o := a.newObject("endpoint.c", "tok", "", pb.Kind_ENDPOINT)
	e := newEndpoint(o, &pb.EndpointSpec{Address: "192.0.2.1", Port: 7471}, endpointConfig{}, nil)
	o.impl = e
	a.reg.add(o)
	defer close(o.done) // no lifecycle runs: Close need not wait for one
	o.event(pb.Status_CONNECTING, "connecting", "")
	_, err := a.Reconnect("endpoint.c")
	if err == nil || !strings.Contains(err.Error(), "endpoint.c is connecting already: wait for the outcome") {
		t.Fatalf("connecting: %v", err)
	}
	if len(e.again) != 0 {
		t.Error("a refused request was queued")
	}
	o.event(pb.Status_RECONNECTING, "reconnecting", "")
	if _, err := a.Reconnect("endpoint.c"); err != nil || len(e.again) != 1 {
		t.Fatalf("reconnecting: %v, %d queued", err, len(e.again))
	}
	if _, err := a.Reconnect("endpoint.c"); err != nil || len(e.again) != 1 {
		t.Fatalf("asked twice: %v, %d queued", err, len(e.again))
	}
}
