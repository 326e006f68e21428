package command

import (
	"context"
	"fmt"
	"io"
	"time"

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
	fc := &fabricConn{Refresher: f, Devices: f, Fabric: f, Close: func() error { f.Close(); return c.Close() }, CreateBeforeDestroy: true, Agent: identity}
	fc.Objects = func(ctx context.Context) ([]*pb.Object, error) {
		// Full: a summary has no facts (the addresses the peers are
		// matched by).
		list, err := c.List(ctx, &pb.ListRequest{Full: true, Filter: &pb.Filter{Kinds: []pb.Kind{pb.Kind_ENDPOINT, pb.Kind_CONNECTION}}})
		if err != nil {
			return nil, client.Explain(err)
		}
		return list.Objects, nil
	}
	if c.StartedPID != 0 {
		fc.StopStarted = func() string { return stopStartedAgent(c) }
	}
	return fc, nil
}

// stopStartedAgent stops the agent c's Connect started, for a command
// that failed: it leaves no process behind it. One that holds objects (an
// apply that made some before it failed) keeps running, and is said to.
func stopStartedAgent(c *client.Client) string {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	list, err := c.List(ctx, &pb.ListRequest{})
	if err != nil {
		return fmt.Sprintf("The agent this command started (pid %d) keeps running: asking what it holds failed: %v. \"rdmaform agent stop\" stops it.", c.StartedPID, client.Explain(err))
	}
	if n := len(list.Objects); n > 0 {
		return fmt.Sprintf("The agent this command started (pid %d) keeps running: it holds %d objects.", c.StartedPID, n)
	}
	if err := c.Stop(ctx); err != nil {
		return fmt.Sprintf("The agent this command started (pid %d) may still run: %v.", c.StartedPID, err)
	}
	return fmt.Sprintf("Stopped the agent this command started (pid %d), since the command failed and the agent holds nothing.", c.StartedPID)
}
