package agentfabric

import (
	"context"
	"reflect"
	"slices"
	"testing"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/planner"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// kindAgent answers List with its objects of the filter's kinds, as the
// agent does, and keeps the request.
type kindAgent struct {
	pb.AgentClient
	objects []*pb.Object
	asked   *pb.ListRequest
	// programs are the kernel's listening cm_ids of other processes; nil:
	// the agent does not know KernelListeners (an older agent).
	programs []*pb.KernelResource
}

func (a *kindAgent) KernelListeners(context.Context, *pb.KernelListenersRequest, ...grpc.CallOption) (*pb.KernelListenersResponse, error) {
	if a.programs == nil {
		return nil, status.Error(codes.Unimplemented, "unknown method KernelListeners")
	}
	return &pb.KernelListenersResponse{Listeners: a.programs}, nil
}

func (a *kindAgent) List(_ context.Context, r *pb.ListRequest, _ ...grpc.CallOption) (*pb.ListResponse, error) {
	a.asked = r
	out := &pb.ListResponse{}
	for _, o := range a.objects {
		if slices.Contains(r.GetFilter().GetKinds(), o.Kind) {
			out.Objects = append(out.Objects, o)
		}
	}
	return out, nil
}

func TestListenersAreThoseThatBindTheirAddress(t *testing.T) {
	spec := func(address string, port uint32, ps string) *pb.Object_Listener {
		return &pb.Object_Listener{Listener: &pb.ListenerSpec{Address: address, Port: port, PortSpace: ps}}
	}
	agent := &kindAgent{objects: []*pb.Object{
		{Address: "endpoint.e@a", Kind: pb.Kind_ENDPOINT, Status: pb.Status_ESTABLISHED},
		{Address: "listener.creating@a", Kind: pb.Kind_LISTENER, Status: pb.Status_CREATING, Spec: spec("10.77.0.1", 7001, "")},
		{Address: "listener.failed@a", Kind: pb.Kind_LISTENER, Status: pb.Status_ERROR, Spec: spec("10.77.0.1", 7002, "tcp")},
		{Address: "listener.gone@a", Kind: pb.Kind_LISTENER, Status: pb.Status_ERROR, Spec: spec("10.77.0.1", 7003, "tcp"), Facts: &pb.Facts{LocalAddr: "10.77.0.1:7003"}},
		{Address: "listener.loop@a", Kind: pb.Kind_LISTENER, Status: pb.Status_LISTENING, Spec: spec("::", 7004, "udp"), Facts: &pb.Facts{LocalAddr: "[::]:7004"}},
	}}
	got, err := New(agent).Listeners(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []planner.LiveListener{
		{Handle: "listener.creating@a", Address: "10.77.0.1", Port: 7001, PortSpace: "tcp"}, // the agent's default port space
		{Handle: "listener.gone@a", Address: "10.77.0.1", Port: 7003, PortSpace: "tcp"},     // its device went: it keeps the port
		{Handle: "listener.loop@a", Address: "::", Port: 7004, PortSpace: "udp"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	if r := agent.asked; !r.Full || !reflect.DeepEqual(r.GetFilter().GetKinds(), []pb.Kind{pb.Kind_LISTENER}) {
		t.Errorf("asked %v: want the full listing of the listeners alone (their specs)", r)
	}
}

// Other programs' listening ids, from the kernel's tracking, are listed as
// programs, named by their command and pid, a wildcard's address as an
// address.
func TestListenersIncludeOtherProgramsFromTheKernel(t *testing.T) {
	agent := &kindAgent{programs: []*pb.KernelResource{
		{Kind: "cm_id", LocalAddr: "10.77.0.1:7493", PortSpace: "tcp", State: "LISTEN", Pid: 4242, Command: "rping"},
		{Kind: "cm_id", LocalAddr: "[::]:7494", PortSpace: "udp", State: "LISTEN", Command: "rdma_cm"},
	}}
	got, err := New(agent).Listeners(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []planner.LiveListener{
		{Handle: "rping (pid 4242)", Address: "10.77.0.1", Port: 7493, PortSpace: "tcp", Program: true},
		{Handle: "the kernel's rdma_cm", Address: "::", Port: 7494, PortSpace: "udp", Program: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}
