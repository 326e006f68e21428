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
	f.remote = &remoteRoutes{local: map[netip.Addr]bool{}}
	return f
}

// remoteAskTimeout bounds one question to a remote agent.
const remoteAskTimeout = 10 * time.Second

// remoteRoutes remembers a remote agent's answers: the device checks ask
// whether an address is local right after asking for its device, in one
// answer.
type remoteRoutes struct {
	mu    sync.Mutex
	local map[netip.Addr]bool
}

func (r *remoteRoutes) deviceFor(ctx context.Context, a pb.AgentClient, address string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, remoteAskTimeout)
	defer cancel()
	resp, err := a.DeviceFor(ctx, &pb.DeviceForRequest{Address: address})
	if status.Code(err) == codes.Unimplemented {
		return "", fmt.Errorf("the agent cannot say which RDMA device serves %s: it is older than this rdmaform: upgrade rdmaform on that host and restart its agent", address)
	}
	if err != nil {
		return "", fmt.Errorf("asking the agent which RDMA device serves %s: %w", address, rpcError(err))
	}
	if ip, err := netip.ParseAddr(address); err == nil {
		r.mu.Lock()
		r.local[ip.WithZone("").Unmap()] = resp.Local
		r.mu.Unlock()
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

// isLocal answers from the agent's word on the address, asking it when
// it was not asked yet; an agent that cannot say leaves it to apply.
func (r *remoteRoutes) isLocal(a pb.AgentClient, ip netip.Addr) bool {
	ip = ip.WithZone("").Unmap()
	r.mu.Lock()
	local, known := r.local[ip]
	r.mu.Unlock()
	if known {
		return local
	}
	ctx, cancel := context.WithTimeout(context.Background(), remoteAskTimeout)
	defer cancel()
	resp, err := a.DeviceFor(ctx, &pb.DeviceForRequest{Address: ip.String()})
	if err != nil {
		return true
	}
	r.mu.Lock()
	r.local[ip] = resp.Local
	r.mu.Unlock()
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
