package command

import (
	"context"
	"io"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/apply/agent/client"
	"github.com/rdmaform/rdmaform/apply/agentfabric"
	"github.com/rdmaform/rdmaform/planner"
)

// connectAgent is how plan, apply and destroy reach the fabric: through
// the agent, starting one in the background when none answers (as monitor
// does).
func connectAgent(ctx context.Context, socket string, notify io.Writer, mayStart func() bool) (*fabricConn, error) {
	c, err := client.Connect(ctx, client.ChooseSocket("", socket), client.StartOptions{Notify: notify, MayStart: mayStart})
	if err != nil {
		return nil, err
	}
	f := agentfabric.New(c)
	// A create_before_destroy replacement is created under another
	// name while the object it replaces holds the address.
	identity := func(ctx context.Context) (planner.AgentIdentity, error) {
		info, err := c.Info(ctx, &pb.InfoRequest{})
		if err != nil {
			return planner.AgentIdentity{}, err
		}
		return planner.AgentIdentity{PID: int(info.Pid), StartedAt: info.StartedAt}, nil
	}
	return &fabricConn{Refresher: f, Devices: f, Fabric: f, Close: func() error { f.Close(); return c.Close() }, CreateBeforeDestroy: true, Agent: identity}, nil
}
