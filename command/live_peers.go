package command

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/apply/agent/client"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/state"
	"github.com/rdmaform/rdmaform/tui/termsafe"
)

// One agent serves every configuration of a host, each under its own
// namespace: a plan that destroys a listener ends connections this state
// knows nothing of (another namespace's endpoints, another host's), whose
// endpoints then go reconnecting, or stay disconnected. And a plan that
// replaces connected endpoints destroys them all before making any again.
// Neither shows in "1 to destroy": these warnings name what is cut.

// listObjects lists every object the local agent holds, of every
// namespace, with their facts.
type listObjects func(context.Context) ([]*pb.Object, error)

// livePeerWarnings warns of what the plan's destruction of listeners and
// replacement of endpoints cuts, from the objects the local agent holds
// (with their facts). cbd says whether the agent can create a
// replacement before destroying what it replaces.
func livePeerWarnings(p *planner.Plan, prior *state.State, objects []*pb.Object, cbd bool) hcl.Diagnostics {
	if p == nil || prior == nil || len(objects) == 0 {
		return nil
	}
	handles := map[string]string{} // state address -> agent name
	managed := map[string]bool{}   // agent names of this state's objects
	for _, o := range prior.Objects {
		h := planner.AgentHandle(o)
		handles[o.Addr.String()] = h
		managed[h] = true
	}
	byName := map[string]*pb.Object{}
	for _, o := range objects {
		byName[o.Address] = o
	}
	var diags hcl.Diagnostics
	var interrupted []string
	for _, c := range p.Changes {
		if c.PriorAgent != "" { // another host's agent: not these objects
			continue
		}
		h, ok := handles[c.Addr.String()]
		if !ok {
			continue
		}
		switch {
		case c.Addr.Kind == addrs.Listener && (c.Action == planner.Delete || c.Action.IsReplace()):
			if peers := listenerPeers(h, objects, managed); len(peers) > 0 {
				verb := "destroying"
				if c.Action.IsReplace() {
					verb = "replacing"
				}
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning,
					Summary: fmt.Sprintf("%s %s cuts live connections of other configurations", strings.ToUpper(verb[:1])+verb[1:], c.Addr),
					Detail: fmt.Sprintf("%s has %d live %s that %s it ends: %s. Their endpoints reconnect if they have a reconnect block (to a new listener on the same address and port), and stay disconnected otherwise.",
						c.Addr, len(peers), plural(len(peers), "connection", "connections"), verb, joinAnd(peers))})
			}
		case c.Addr.Kind == addrs.Endpoint && c.Action == planner.DeleteThenCreate && c.Reason != planner.ReasonListenerReplaced:
			if o := byName[h]; o != nil && (o.Status == pb.Status_ESTABLISHED || o.Status == pb.Status_DEGRADED) {
				interrupted = append(interrupted, c.Addr.String())
			}
		}
	}
	if len(interrupted) > 0 {
		n := len(interrupted)
		detail := fmt.Sprintf("This plan destroys %d connected %s before it creates %s again: the replacement interrupts %d live %s (%s).",
			n, plural(n, "endpoint", "endpoints"), plural(n, "it", "them"), n, plural(n, "connection", "connections"), joinAnd(interrupted))
		if cbd {
			detail += " To keep each connected until its replacement is, add lifecycle { create_before_destroy = true } to the endpoint's block."
		}
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Replacement interrupts live connections", Detail: detail})
	}
	return diags
}

// listenerPeers names the far ends of the live connections the listener
// the agent holds as name accepted, except this state's own endpoints
// (the plan shows what happens to them): another namespace's endpoint as
// `endpoint.x[0] (namespace other)`, then a connection from no endpoint
// of this agent by its address, `10.77.0.5:53311 (not held by this agent:
// another host's, or not rdmaform's)`.
func listenerPeers(name string, objects []*pb.Object, managed map[string]bool) []string {
	var conns []*pb.Object
	var endpoints []*pb.Object
	for _, o := range objects {
		switch {
		case o.Kind == pb.Kind_CONNECTION && o.Parent == name && o.Status == pb.Status_ESTABLISHED:
			conns = append(conns, o)
		case o.Kind == pb.Kind_ENDPOINT:
			endpoints = append(endpoints, o)
		}
	}
	sort.Slice(conns, func(i, j int) bool { return conns[i].Address < conns[j].Address })
	taken := map[*pb.Object]bool{}
	var peers, strangers []string
	for _, conn := range conns {
		cf := client.CurrentFacts(conn)
		var peer *pb.Object
		for _, ep := range endpoints {
			ef := client.CurrentFacts(ep)
			if !taken[ep] && cf.GetRemoteAddr() != "" && ef.GetLocalAddr() == cf.GetRemoteAddr() && ef.GetRemoteAddr() == cf.GetLocalAddr() && qpsCross(ef, cf) {
				peer = ep
				break
			}
		}
		switch {
		case peer == nil && cf.GetRemoteAddr() != "":
			strangers = append(strangers, termsafe.String(cf.GetRemoteAddr())+" (not held by this agent: another host's, or not rdmaform's)")
		case peer == nil:
			strangers = append(strangers, termsafe.String(conn.Address)+" (its peer's address unknown)")
		case managed[peer.Address]:
			taken[peer] = true
		default:
			taken[peer] = true
			peers = append(peers, namespacedName(peer.Address))
		}
	}
	// The endpoints by name, then the others in the connections' order.
	sort.Strings(peers)
	return append(peers, strangers...)
}

// namespacedName is an agent name as `endpoint.x[0] (namespace other)`,
// or `endpoint.x[0] (the default namespace)`.
func namespacedName(name string) string {
	ns := planner.NamespaceOf(name)
	if ns == "" {
		return termsafe.String(planner.AddressOf(name)) + " (the default namespace)"
	}
	return fmt.Sprintf("%s (namespace %s)", termsafe.String(planner.AddressOf(name)), termsafe.String(ns))
}

// joinAnd is "a, b and c".
func joinAnd(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// planCuts reports whether the plan destroys or replaces a listener or
// replaces an endpoint of the local agent: only then are its objects
// listed.
func planCuts(p *planner.Plan) bool {
	for _, c := range p.Changes {
		if c.PriorAgent == "" && ((c.Addr.Kind == addrs.Listener && (c.Action == planner.Delete || c.Action.IsReplace())) ||
			(c.Addr.Kind == addrs.Endpoint && c.Action == planner.DeleteThenCreate)) {
			return true
		}
	}
	return false
}

// cutWarnings is livePeerWarnings for the session's plan, when it cuts
// anything and the agent can list its objects. Failing to list them
// costs the warning, not the plan.
func (se *session) cutWarnings(p *planner.Plan) hcl.Diagnostics {
	if se.conn == nil || se.conn.Objects == nil || !p.Refreshed || !planCuts(p) {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	objects, err := se.conn.Objects(ctx)
	if err != nil {
		return hcl.Diagnostics{{Severity: hcl.DiagWarning, Summary: "Live connections not checked",
			Detail: fmt.Sprintf("This plan destroys or replaces connected objects, and listing what the agent holds, to name the live connections that cuts, failed: %v.", err)}}
	}
	return livePeerWarnings(p, se.prior, objects, se.conn.CreateBeforeDestroy)
}
