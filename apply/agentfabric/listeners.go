package agentfabric

import (
	"context"
	"fmt"

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
	return out, nil
}

// bindsItsAddress: a listener binds its address (or is about to, while
// being created) unless the bind failed; one that failed after listening
// (its device went) keeps its id, and the port, until it is deleted. The
// agent records a listener's facts once it listens.
func bindsItsAddress(o *pb.Object) bool {
	return o.Status != pb.Status_ERROR || o.Facts != nil
}
