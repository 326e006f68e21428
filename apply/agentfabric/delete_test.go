package agentfabric

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// deleteAgent answers DeleteMany (or, when old, only Delete), each call
// held until hold is closed; "protection_domain.busy" is in use.
type deleteAgent struct {
	pb.AgentClient
	old     bool
	hold    chan struct{}
	entered chan struct{}
	mu      sync.Mutex
	batches []int
	singles int
}

func (a *deleteAgent) DeleteMany(_ context.Context, r *pb.DeleteManyRequest, _ ...grpc.CallOption) (*pb.DeleteManyResponse, error) {
	if a.old {
		return nil, status.Error(codes.Unimplemented, "unknown method DeleteMany")
	}
	a.mu.Lock()
	a.batches = append(a.batches, len(r.Addresses))
	a.mu.Unlock()
	a.entered <- struct{}{}
	<-a.hold
	out := &pb.DeleteManyResponse{}
	for _, addr := range r.Addresses {
		res := &pb.DeleteResult{Address: addr, Existed: true}
		if addr == "protection_domain.busy" {
			res.Code, res.Error = int32(codes.FailedPrecondition), "protection_domain.busy is in use"
		}
		out.Results = append(out.Results, res)
	}
	return out, nil
}

func (a *deleteAgent) Delete(_ context.Context, r *pb.DeleteRequest, _ ...grpc.CallOption) (*pb.DeleteResponse, error) {
	a.mu.Lock()
	a.singles++
	a.mu.Unlock()
	if r.Address == "protection_domain.busy" {
		return nil, status.Error(codes.FailedPrecondition, "in use")
	}
	return &pb.DeleteResponse{Existed: true}, nil
}

// Up to maxDeleteCalls calls are in flight; deletes queued meanwhile go
// together in the next one, each with its own outcome.
func TestDeleterGroupsConcurrentDeletes(t *testing.T) {
	a := &deleteAgent{hold: make(chan struct{}), entered: make(chan struct{}, 100)}
	var d deleter
	ctx := context.Background()
	var ps []*pendingDelete
	for i := 0; i < maxDeleteCalls; i++ {
		ps = append(ps, d.enqueue(ctx, a, fmt.Sprintf("endpoint.e[%d]", i)))
		<-a.entered
	}
	for i := maxDeleteCalls; i < maxDeleteCalls+5; i++ {
		ps = append(ps, d.enqueue(ctx, a, fmt.Sprintf("endpoint.e[%d]", i)))
	}
	busy := d.enqueue(ctx, a, "protection_domain.busy")
	close(a.hold)
	for _, p := range ps {
		<-p.done
		if p.err != nil {
			t.Fatalf("%s: %v", p.address, p.err)
		}
	}
	<-busy.done
	if status.Code(busy.err) != codes.FailedPrecondition {
		t.Fatalf("busy: %v", busy.err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	want := strings.Repeat("1 ", maxDeleteCalls) + "6"
	if got := strings.Trim(fmt.Sprint(a.batches), "[]"); got != want {
		t.Fatalf("batches %s, want %s", got, want)
	}
}

// An agent without DeleteMany gets one Delete per address.
func TestDeleterFallsBackToSingleDeletes(t *testing.T) {
	a := &deleteAgent{old: true}
	var d deleter
	var ps []*pendingDelete
	for i := 0; i < 30; i++ {
		ps = append(ps, d.enqueue(context.Background(), a, fmt.Sprintf("endpoint.e[%d]", i)))
	}
	busy := d.enqueue(context.Background(), a, "protection_domain.busy")
	for _, p := range ps {
		<-p.done
		if p.err != nil {
			t.Fatalf("%s: %v", p.address, p.err)
		}
	}
	<-busy.done
	if status.Code(busy.err) != codes.FailedPrecondition || a.singles != 31 {
		t.Fatalf("busy %v, %d single deletes", busy.err, a.singles)
	}
}
