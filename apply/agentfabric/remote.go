package agentfabric

import (
	"context"
	"fmt"
	"net/netip"
	"sync"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/state"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// NewRemote adapts the client of an agent on another host: plan's device
// questions (which device serves an address, whether it is the host's
// own) are asked of that agent, since this host's interfaces and routes
// say nothing of its.
func NewRemote(a pb.AgentClient) *Fabric {
	f := New(a)
	f.remote = &remoteRoutes{answers: map[string]*pb.DeviceForResponse{}}
	return f
}

// remoteAskTimeout bounds one question to a remote agent.
const remoteAskTimeout = 10 * time.Second

// remoteRoutes remembers a remote agent's answers, by address: the
// device checks ask whether an address is the host's and which device
// serves it, which one DeviceFor answers.
type remoteRoutes struct {
	mu      sync.Mutex
	answers map[string]*pb.DeviceForResponse
}

// ask returns the agent's answer on address, asking it once.
func (r *remoteRoutes) ask(ctx context.Context, a pb.AgentClient, address string) (*pb.DeviceForResponse, error) {
	r.mu.Lock()
	resp, known := r.answers[address]
	r.mu.Unlock()
	if known {
		return resp, nil
	}
	ctx, cancel := context.WithTimeout(ctx, remoteAskTimeout)
	defer cancel()
	resp, err := a.DeviceFor(ctx, &pb.DeviceForRequest{Address: address})
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.answers[address] = resp
	r.mu.Unlock()
	return resp, nil
}

func (r *remoteRoutes) deviceFor(ctx context.Context, a pb.AgentClient, address string) (string, error) {
	resp, err := r.ask(ctx, a, address)
	if status.Code(err) == codes.Unimplemented {
		return "", fmt.Errorf("the agent cannot say which RDMA device serves %s: it is older than this rdmaform: upgrade rdmaform on that host and restart its agent", address)
	}
	if err != nil {
		return "", fmt.Errorf("asking the agent which RDMA device serves %s: %w", address, rpcError(err))
	}
	if resp.Device == "" {
		why := resp.NoDevice
		if why == "" {
			why = "the agent names none"
		}
		return "", fmt.Errorf("%w: %s", planner.ErrNoDevice, why)
	}
	return resp.Device, nil
}

// isLocal answers from the agent's word on the address; an agent that
// cannot say leaves it to apply.
func (r *remoteRoutes) isLocal(a pb.AgentClient, ip netip.Addr) bool {
	resp, err := r.ask(context.Background(), a, ip.WithZone("").Unmap().String())
	if err != nil {
		return true
	}
	return resp.Local
}

// factsOf is the object's facts as this fabric records them: a remote
// agent's objects are on its host, not this one, which the state's
// agent_host would otherwise name (the object's agent says where it is).
func (f *Fabric) factsOf(o *pb.Object) state.Facts {
	facts := factsOf(o)
	if f.remote != nil {
		facts.AgentHost = ""
	}
	return facts
}
