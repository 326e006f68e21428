package agentfabric

import (
	"context"
	"fmt"
	"net/netip"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/planner"
)

var _ planner.ListenerReader = (*Fabric)(nil)

// Listeners lists the listeners the agent holds that bind their address,
// with their specs, in one round trip: the refresh's summary carries no
// specs, and a plan needs them only when it creates a listener.
func (f *Fabric) Listeners(ctx context.Context) ([]planner.LiveListener, error) {
	r, err := f.agent.List(ctx, &pb.ListRequest{Full: true, Filter: &pb.Filter{Kinds: []pb.Kind{pb.Kind_LISTENER}}})
	if err != nil {
		return nil, fmt.Errorf("listing the agent's listeners: %w", rpcError(err))
	}
	var out []planner.LiveListener
	for _, o := range r.Objects {
		spec := o.GetListener()
		if spec == nil || !bindsItsAddress(o) {
			continue
		}
		ps := spec.PortSpace
		if ps == "" {
			ps = "tcp" // the agent's default
		}
		out = append(out, planner.LiveListener{Handle: o.Address, Address: spec.Address, Port: int(spec.Port), PortSpace: ps})
	}
	return append(out, f.programListeners(ctx)...), nil
}

// programListeners are the listening cm_ids other programs hold on the
// agent's host, as the kernel tracks them: plan then names the program
// (rping -s, an application) that holds a port rather than leave apply
// to fail on EADDRINUSE. An agent that cannot tell (an older one, a
// kernel without RDMA netlink) adds none.
func (f *Fabric) programListeners(ctx context.Context) []planner.LiveListener {
	r, err := f.agent.KernelListeners(ctx, &pb.KernelListenersRequest{})
	if err != nil || r.Unavailable != "" {
		return nil
	}
	var out []planner.LiveListener
	for _, l := range r.Listeners {
		ap, err := netip.ParseAddrPort(l.LocalAddr)
		if err != nil {
			continue
		}
		out = append(out, planner.LiveListener{Handle: l.Program(), Address: ap.Addr().Unmap().String(), Port: int(ap.Port()),
			PortSpace: l.PortSpace, Program: true})
	}
	return out
}

// bindsItsAddress: a listener binds its address (or is about to, while
// being created) unless the bind failed; one that failed after listening
// (its device went) keeps its id, and the port, until it is deleted. The
// agent records a listener's facts once it listens.
func bindsItsAddress(o *pb.Object) bool {
	return o.Status != pb.Status_ERROR || o.Facts != nil
}
