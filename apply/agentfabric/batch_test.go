package agentfabric

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// batchAgent answers CreateEndpoints (or, when old, only CreateEndpoint),
// the first call held at hold until released.
type batchAgent struct {
	pb.AgentClient
	old     bool
	hold    chan struct{}
	entered chan struct{}

	mu      sync.Mutex
	batches []int
	singles int
}

func (a *batchAgent) CreateEndpoints(_ context.Context, r *pb.CreateEndpointsRequest, _ ...grpc.CallOption) (*pb.CreateEndpointsResponse, error) {
	if a.old {
		return nil, status.Error(codes.Unimplemented, "unknown method CreateEndpoints")
	}
	a.mu.Lock()
	first := len(a.batches) == 0
	a.batches = append(a.batches, len(r.Endpoints))
	a.mu.Unlock()
	if first {
		close(a.entered)
		<-a.hold
	}
	out := &pb.CreateEndpointsResponse{}
	for _, e := range r.Endpoints {
		if e.Address == "endpoint.taken" {
			out.Results = append(out.Results, &pb.CreateResult{Code: int32(codes.AlreadyExists), Error: "endpoint.taken exists under another token"})
			continue
		}
		out.Results = append(out.Results, &pb.CreateResult{Object: &pb.Object{Address: e.Address, Token: e.Token, Status: pb.Status_CREATING}})
	}
	return out, nil
}

func (a *batchAgent) CreateEndpoint(_ context.Context, r *pb.CreateEndpointRequest, _ ...grpc.CallOption) (*pb.Object, error) {
	a.mu.Lock()
	a.singles++
	a.mu.Unlock()
	return &pb.Object{Address: r.Address, Token: r.Token, Status: pb.Status_CREATING}, nil
}

// Creates queued while a call is in flight go together in the next call,
// and each gets its own result, in order, errors included.
func TestBatcherGroupsConcurrentCreates(t *testing.T) {
	a := &batchAgent{hold: make(chan struct{}), entered: make(chan struct{})}
	var b batcher
	ctx := context.Background()
	first := b.enqueue(ctx, a, &pb.CreateEndpointRequest{Address: "endpoint.e[0]", Token: "t0"})
	<-a.entered
	var later []*pendingCreate
	for i := 1; i <= 5; i++ {
		later = append(later, b.enqueue(ctx, a, &pb.CreateEndpointRequest{Address: fmt.Sprintf("endpoint.e[%d]", i), Token: fmt.Sprintf("t%d", i)}))
	}
	taken := b.enqueue(ctx, a, &pb.CreateEndpointRequest{Address: "endpoint.taken", Token: "x"})
	close(a.hold)
	<-first.done
	if first.err != nil || first.obj.Address != "endpoint.e[0]" {
		t.Fatalf("first: %v %v", first.obj, first.err)
	}
	for i, p := range later {
		<-p.done
		if p.err != nil || p.obj.Address != fmt.Sprintf("endpoint.e[%d]", i+1) || p.obj.Token != fmt.Sprintf("t%d", i+1) {
			t.Fatalf("later %d: %v %v", i, p.obj, p.err)
		}
	}
	<-taken.done
	if status.Code(taken.err) != codes.AlreadyExists || taken.obj != nil {
		t.Fatalf("taken: %v %v", taken.obj, taken.err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if fmt.Sprint(a.batches) != "[1 6]" {
		t.Fatalf("batches %v, want [1 6]", a.batches)
	}
}

// An agent without CreateEndpoints gets one CreateEndpoint per endpoint.
func TestBatcherFallsBackToSingleCreates(t *testing.T) {
	a := &batchAgent{old: true}
	var b batcher
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o, err := b.create(context.Background(), a, &pb.CreateEndpointRequest{Address: fmt.Sprintf("endpoint.e[%d]", i)})
			if err != nil || o.Address != fmt.Sprintf("endpoint.e[%d]", i) {
				t.Errorf("%d: %v %v", i, o, err)
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("creates did not complete")
	}
	if a.singles != 20 {
		t.Fatalf("%d single creates, want 20", a.singles)
	}
}
