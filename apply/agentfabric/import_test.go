package agentfabric

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/apply"
	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"google.golang.org/grpc"
)

// listAgent answers List with its objects whose address has the filter's
// prefix.
type listAgent struct {
	pb.AgentClient
	objects []*pb.Object
}

func (a *listAgent) List(_ context.Context, r *pb.ListRequest, _ ...grpc.CallOption) (*pb.ListResponse, error) {
	out := &pb.ListResponse{}
	for _, o := range a.objects {
		if strings.HasPrefix(o.Address, r.GetFilter().GetPrefixes()[0]) {
			out.Objects = append(out.Objects, o)
		}
	}
	return out, nil
}

func TestImportChecksTheAgentsObjectAgainstTheConfiguration(t *testing.T) {
	e := &config.Endpoint{Address: "10.77.0.1", Port: 7811, PortSpace: "tcp",
		Connect: config.Connect{ResponderResources: 1, InitiatorDepth: 1, RetryCount: 7, RNRRetryCount: 7, Timeout: 2 * time.Second}}
	live := endpointSpec(e)
	other := endpointSpec(e)
	other.Port, other.Connect.RetryCount = 7999, 3
	agent := &listAgent{objects: []*pb.Object{
		{Address: "endpoint.e[0]", Kind: pb.Kind_ENDPOINT, Status: pb.Status_ESTABLISHED, Token: "tok-1",
			Spec: &pb.Object_Endpoint{Endpoint: live}, Facts: &pb.Facts{Device: "rxe0", QpNum: 17, LocalAddr: "10.77.0.1:40000"}},
		{Address: "endpoint.e[0]x", Kind: pb.Kind_ENDPOINT, Spec: &pb.Object_Endpoint{Endpoint: other}},
		{Address: "endpoint.e[1]", Kind: pb.Kind_ENDPOINT, Spec: &pb.Object_Endpoint{Endpoint: other}},
		{Address: "listener.l", Kind: pb.Kind_LISTENER, Spec: &pb.Object_Listener{Listener: &pb.ListenerSpec{}}},
	}}
	f := New(agent)
	addr := func(s string) addrs.Instance {
		a, err := addrs.ParseInstance(s)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	live.CreateTimeout = int64(5 * time.Second) // made with timeouts.create = "5s", changed since
	spec := apply.Spec{Endpoint: e}
	facts, err := f.Import(context.Background(), apply.Handle{Addr: addr("endpoint.e[0]"), Name: "endpoint.e[0]"}, spec)
	if err != nil || facts.CreateToken != "tok-1" || facts.QPNum != 17 || facts.AgentHandle != "endpoint.e[0]" || facts.LocalPort != 40000 {
		t.Fatalf("import of a matching object: %+v, %v", facts, err)
	}
	for _, c := range []struct{ name, want string }{
		{"endpoint.e[1]", "port, connect.retry_count differ"},
		{"listener.l", "is of kind listener"},
		{"endpoint.gone", `holds no object named "endpoint.gone"`},
	} {
		_, err := f.Import(context.Background(), apply.Handle{Addr: addr("endpoint.e[0]"), Name: c.name}, spec)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("import of %s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
}
