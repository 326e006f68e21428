package agentfabric

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/apply"
	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/config"
	"github.com/zclconf/go-cty/cty"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// An older agent reports ESTABLISHED, then the facts in the next change: the
// create waits for them (the state records the QP number), but not for
// long when they do not come.
func TestWaitEstablishedWaitsForTheFacts(t *testing.T) {
	f := New(nil)
	e := &config.Endpoint{Connect: config.Connect{Timeout: 2 * time.Second}}
	updates := make(chan *pb.Object, 1)
	est := &pb.Object{Address: "endpoint.e", Status: pb.Status_ESTABLISHED, Revision: 5}
	go func() {
		time.Sleep(20 * time.Millisecond)
		updates <- &pb.Object{Address: "endpoint.e", Status: pb.Status_ESTABLISHED, Revision: 6, Facts: &pb.Facts{QpNum: 17, Device: "rxe0"}}
	}()
	facts, err := f.waitEstablished(context.Background(), nil, "endpoint.e", e, est, updates)
	if err != nil || facts.QPNum != 17 || facts.Device != "rxe0" {
		t.Fatalf("%+v %v", facts, err)
	}

	old := factsGrace
	factsGrace = 50 * time.Millisecond
	t.Cleanup(func() { factsGrace = old })
	start := time.Now()
	facts, err = f.waitEstablished(context.Background(), nil, "endpoint.e", e, est, make(chan *pb.Object))
	if err != nil || facts.Status != "established" || facts.QPNum != 0 || time.Since(start) > time.Minute {
		t.Fatalf("without facts: %+v %v after %v", facts, err, time.Since(start))
	}
}

// The watch asks only for the statuses a wait can end in: a status that
// ends it but is not asked for would leave apply waiting out MinWait.
func TestSettledStatusesCoverEveryEndOfTheWait(t *testing.T) {
	asked := map[pb.Status]bool{}
	for _, s := range settledStatuses {
		asked[s] = true
	}
	for v := range pb.Status_name {
		s := pb.Status(v)
		o := &pb.Object{Status: s, LastError: &pb.ErrorInfo{Call: "rdma_connect"}}
		if (established(o) || failed(o)) != asked[s] {
			t.Errorf("status %s: ends the wait %v, asked for %v", s, established(o) || failed(o), asked[s])
		}
	}
}

// A stream that ends because the agent went away says so, and what to do.
func TestStreamEndedSaysTheAgentStopped(t *testing.T) {
	err := streamEnded("endpoint.e[3]", status.Error(codes.Unavailable, "error reading from server: EOF"))
	if want := `the agent stopped (before endpoint.e[3] was established: error reading from server: EOF): the objects it held are gone with it; the next plan shows them deleted ("rdmaform apply" starts a new agent and makes them again, "rdmaform destroy" forgets them)`; err.Error() != want {
		t.Errorf("got %q", err)
	}
	if !errors.Is(err, apply.ErrFabricGone) {
		t.Errorf("%q does not say the fabric is gone: apply would go on", err)
	}
	if err := rpcError(status.Error(codes.Unavailable, "the agent is stopping")); !errors.Is(err, apply.ErrFabricGone) {
		t.Errorf("an Unavailable call: %q does not say the fabric is gone", err)
	}
	if err := streamEnded("endpoint.e[3]", status.Error(codes.Internal, "boom")); !strings.Contains(err.Error(), "change stream ended before endpoint.e[3]") {
		t.Errorf("got %q", err)
	}
}

// deletedAgent records the addresses Delete is called with.
type deletedAgent struct {
	pb.AgentClient
	deleted []string
}

func (a *deletedAgent) Delete(_ context.Context, r *pb.DeleteRequest, _ ...grpc.CallOption) (*pb.DeleteResponse, error) {
	a.deleted = append(a.deleted, r.Address)
	return &pb.DeleteResponse{Existed: true}, nil
}

// Ctrl-C ends the wait of an endpoint still connecting: the agent drops
// it and the error says the create was cancelled, rather than apply
// waiting out the connect to a peer that never answers. An endpoint
// already established is kept: only its facts are awaited.
func TestInterruptCancelsAnEndpointNotYetEstablished(t *testing.T) {
	agent := &deletedAgent{}
	f := New(agent)
	// The connect timeout is far beyond the bound below: a wait that
	// ignored stop would take it whole, however loaded the host.
	e := &config.Endpoint{Connect: config.Connect{Timeout: 10 * time.Minute}}
	stop := make(chan struct{})
	close(stop)
	connecting := &pb.Object{Address: "endpoint.hang", Status: pb.Status_CONNECTING, Revision: 3}
	start := time.Now()
	_, err := f.waitEstablished(context.Background(), stop, "endpoint.hang", e, connecting, make(chan *pb.Object))
	if !errors.Is(err, apply.ErrCancelled) || err.Error() != "interrupted while it was connecting: the agent dropped it" {
		t.Fatalf("got %v", err)
	}
	if time.Since(start) > time.Minute || len(agent.deleted) != 1 || agent.deleted[0] != "endpoint.hang" {
		t.Fatalf("after %v, deleted %v", time.Since(start), agent.deleted)
	}

	agent.deleted = nil
	est := &pb.Object{Address: "endpoint.ok", Status: pb.Status_ESTABLISHED, Revision: 5}
	updates := make(chan *pb.Object, 1)
	updates <- &pb.Object{Address: "endpoint.ok", Status: pb.Status_ESTABLISHED, Revision: 6, Facts: &pb.Facts{QpNum: 18}}
	facts, err := f.waitEstablished(context.Background(), stop, "endpoint.ok", e, est, updates)
	if err != nil || facts.QPNum != 18 || len(agent.deleted) != 0 {
		t.Fatalf("established: %+v %v, deleted %v", facts, err, agent.deleted)
	}
}

// The wait for an endpoint to connect covers the agent's own bounds
// (resolution twice connect.timeout, then timeouts.create), with grace.
func TestConnectWaitFollowsTheConfiguredTimeouts(t *testing.T) {
	for _, c := range []struct {
		e    config.Endpoint
		want time.Duration
	}{
		{config.Endpoint{}, 2*2*time.Second + 30*time.Second + waitGrace},
		{config.Endpoint{CreateTimeout: 3 * time.Second, Connect: config.Connect{Timeout: 500 * time.Millisecond}}, time.Second + 3*time.Second + waitGrace},
		{config.Endpoint{CreateTimeout: 5 * time.Minute}, 4*time.Second + 5*time.Minute + waitGrace},
	} {
		if got := connectWait(&c.e); got != c.want {
			t.Errorf("%+v: %v, want %v", c.e, got, c.want)
		}
	}
}

// updateAgent records the update requests it answers.
type updateAgent struct {
	pb.AgentClient
	got []*pb.UpdateRequest
}

func (a *updateAgent) Update(_ context.Context, r *pb.UpdateRequest, _ ...grpc.CallOption) (*pb.Object, error) {
	a.got = append(a.got, r)
	return &pb.Object{Address: r.Address, Status: pb.Status_ESTABLISHED}, nil
}

// timeouts.create changes in place: only the next create reads it, so the
// agent is asked to change nothing live.
func TestTimeoutsChangeInPlaceWithNothingLive(t *testing.T) {
	agent := &updateAgent{}
	f := New(agent)
	e := &config.Endpoint{CreateTimeout: 5 * time.Second}
	_, err := f.Update(context.Background(), apply.Handle{Name: "endpoint.e"}, apply.Spec{Endpoint: e}, []cty.Path{cty.GetAttrPath("timeouts").GetAttr("create")})
	if err != nil || len(agent.got) != 1 || agent.got[0].SetProbe || agent.got[0].SetReconnect || agent.got[0].SetMaxConnections {
		t.Fatalf("%v, requests %v", err, agent.got)
	}
}
