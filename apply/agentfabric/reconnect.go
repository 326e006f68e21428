package agentfabric

import (
	"context"
	"fmt"
	"time"

	"github.com/rdmaform/rdmaform/apply"
	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/state"
)

var _ apply.Reconnecter = (*Fabric)(nil)

// AwaitReconnect waits for the endpoint h names to be established on a
// connection newer than the one the state recorded with reconnects, and
// returns its facts: its listener was replaced, and the agent reconnects
// it by itself. ctx ending (Ctrl-C) ends the wait with apply.ErrCancelled;
// the endpoint goes on reconnecting, and the next refresh reads it.
func (f *Fabric) AwaitReconnect(ctx context.Context, h apply.Handle, spec apply.Spec, reconnects int) (state.Facts, error) {
	e := spec.Endpoint
	if e == nil {
		return state.Facts{}, fmt.Errorf("only an endpoint reconnects")
	}
	if err := f.watching(ctx); err != nil {
		return state.Facts{}, err
	}
	updates := f.watch.subscribe(h.Name)
	defer f.watch.unsubscribe(h.Name)
	o, err := f.object(context.WithoutCancel(ctx), h.Name)
	if err != nil {
		return state.Facts{}, err
	}
	wait := reconnectWait(e)
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		switch {
		case established(o) && int(o.Reconnects) > reconnects && o.Facts != nil:
			return f.factsOf(o), nil
		case o.Status == pb.Status_ERROR:
			return state.Facts{}, objectError(o)
		}
		select {
		case next, ok := <-updates:
			if !ok {
				return state.Facts{}, streamEnded(h.Name, f.watch.err())
			}
			if next.Revision >= o.Revision {
				o = next
			}
		case <-ctx.Done():
			return state.Facts{}, fmt.Errorf("%w while it was %s, before its new connection", apply.ErrCancelled, statusWord(o.Status))
		case <-timer.C:
			return state.Facts{}, fmt.Errorf("not reconnected after %v (status %s%s)", wait, statusWord(o.Status), lastErrorSuffix(o))
		}
	}
}

// reconnectWait bounds the wait for a reconnection: the longest back-off
// before the next attempt, then the attempt's own bounds.
func reconnectWait(e *config.Endpoint) time.Duration {
	backoff := 30 * time.Second
	if e.Reconnect != nil && e.Reconnect.MaxBackoff > 0 {
		backoff = e.Reconnect.MaxBackoff
	}
	return backoff + connectWait(e)
}

// object is the agent's object named address, in full.
func (f *Fabric) object(ctx context.Context, address string) (*pb.Object, error) {
	r, err := f.agent.List(ctx, &pb.ListRequest{Full: true, Filter: &pb.Filter{Prefixes: []string{address}}})
	if err != nil {
		return nil, rpcError(err)
	}
	for _, o := range r.Objects {
		if o.Address == address {
			return o, nil
		}
	}
	return nil, fmt.Errorf("the agent holds no object named %q (\"rdmaform status\" lists what it holds)", address)
}
