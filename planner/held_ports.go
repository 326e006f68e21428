package planner

import (
	"context"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
)

// ListenerReader is what a Refresher may also do: list the listeners the
// agent holds with what they bind. The plan asks only when it creates or
// replaces a listener, so a plan that creates none makes no second round
// trip.
type ListenerReader interface {
	// Listeners returns the listeners that bind their address: listening,
	// being created, or failed after listening (the id keeps its port
	// until it is deleted); not those that failed to bind.
	Listeners(ctx context.Context) ([]LiveListener, error)
}

// LiveListener is one listener as the agent holds it.
type LiveListener struct {
	Handle    string // the agent's name for it: listener.loop@a
	Address   string
	Port      int
	PortSpace string // tcp, udp, ib or ipoib
	// Agent is the key of the agent holding it ("" for the local agent).
	Agent string
	// Program: another program on the agent's host holds it, not the
	// agent; Handle names it ("rping (pid 4242)"), from the kernel's
	// resource tracking.
	Program bool
}

// checkHeldPorts refuses a listener the plan creates (or replaces) on an
// address and port that a listener the agent holds for another
// configuration binds: apply would fail to bind it (EADDRINUSE, or
// EADDRNOTAVAIL where a wildcard is involved), for a replacement after
// destroying the listener it replaces and its endpoints. The listeners of
// this state are left to the configuration's own check (they are either
// configured, or destroyed by this plan), and one held under the very
// name a listener is created as to apply's refusal of a name already
// taken.
func checkHeldPorts(ctx context.Context, cfg *config.Config, p *Plan, r Refresher, pre *Priors) hcl.Diagnostics {
	lr, ok := r.(ListenerReader)
	if !ok {
		return nil
	}
	var creating []*config.Instance
	for _, c := range p.Changes {
		if c.Addr.Kind == addrs.Listener && c.Action.Creates() && c.ImportID == "" {
			if inst := cfg.Instances[c.Addr]; inst != nil {
				creating = append(creating, inst)
			}
		}
	}
	if len(creating) == 0 {
		return nil
	}
	live, err := lr.Listeners(ctx)
	if err != nil {
		return hcl.Diagnostics{sourceless(hcl.DiagError, "Failed to list the agent's listeners", err.Error())}
	}
	ours := make(map[string]bool, len(pre.byAddr)+len(creating))
	for _, pr := range pre.byAddr {
		ours[AgentHandle(pr.obj)] = true
		if d := pr.obj.Facts.Deposed; d != nil {
			ours[d.AgentHandle] = true
		}
	}
	for _, inst := range creating {
		// A listener already held under the name this one is created
		// as is this configuration's own after a lost state, or another's
		// without a namespace: apply refuses to create it, and says to
		// import it or to use a namespace, which is the advice to give.
		ours[AgentName(inst.Addr, cfg.AgentNamespace())] = true
	}
	// A port is taken on its own host only: each agent's listeners are
	// checked against those it holds.
	held := map[string][]config.HeldListener{}
	for _, l := range live {
		if !ours[l.Handle] {
			held[l.Agent] = append(held[l.Agent], config.HeldListener{Name: l.Handle, Address: l.Address, Port: l.Port, PortSpace: config.PortSpace(l.PortSpace), Program: l.Program})
		}
	}
	byAgent := map[string][]*config.Instance{}
	var agents []string
	for _, inst := range creating {
		if byAgent[inst.Agent] == nil {
			agents = append(agents, inst.Agent)
		}
		byAgent[inst.Agent] = append(byAgent[inst.Agent], inst)
	}
	var diags hcl.Diagnostics
	for _, agent := range agents { // in the order of the plan's changes
		diags = append(diags, config.CheckHeldPorts(byAgent[agent], held[agent])...)
	}
	return onePerBlock(diags)
}
