package planner

import (
	"fmt"
	"net"
	"net/netip"
	"sort"
	"strconv"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
)

// connectionsOverNewLimit warns of a listener whose max_connections an
// update lowers below the connections it holds: they are kept (the limit
// applies to new requests), which a user lowering it may not expect.
func connectionsOverNewLimit(p *Plan, live map[string]LiveObject, pre *Priors) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, c := range p.Changes {
		if c.Action != Update || c.After.IsNull() || !c.After.Type().IsObjectType() || !c.After.Type().HasAttribute("accept") {
			continue
		}
		pr := pre.byAddr[c.Addr.String()]
		if pr == nil {
			continue
		}
		limit, ok := maxConnections(c.After)
		if !ok || limit == 0 {
			continue
		}
		n := live[AgentHandle(pr.obj)].Connections - endpointsDeletedToward(p, pre, c.After)
		if n > limit {
			diags = append(diags, sourceless(hcl.DiagWarning, "Connections over the new max_connections",
				fmt.Sprintf("%s holds %d connections (besides those of endpoints this plan destroys) and the update lowers accept.max_connections to %d: they are kept, and the limit applies to new requests (the agent rejects them until fewer than %d remain).", c.Addr, n, limit, limit)))
		}
	}
	return diags
}

// endpointsDeletedToward counts the endpoints the plan destroys (not
// replaces) that the state records as connecting to listener's address
// and port: their connections go with them.
func endpointsDeletedToward(p *Plan, pre *Priors, listener cty.Value) int {
	addr, port := listener.GetAttr("address"), listener.GetAttr("port")
	if !addr.IsKnown() || !port.IsKnown() {
		return 0
	}
	n := 0
	for _, c := range p.Changes {
		if c.Action != Delete || c.Addr.Kind != addrs.Endpoint {
			continue
		}
		pr := pre.byAddr[c.Addr.String()]
		if pr == nil || pr.val.IsNull() || !pr.val.IsKnown() {
			continue
		}
		if a, pt := pr.fields.attr(pr.val, "address"), pr.fields.attr(pr.val, "port"); a.IsKnown() && pt.IsKnown() && a.Equals(addr).True() && pt.Equals(port).True() {
			n++
		}
	}
	return n
}

func maxConnections(v cty.Value) (int, bool) {
	a := v.GetAttr("accept")
	if !a.IsKnown() || a.IsNull() || !a.Type().HasAttribute("max_connections") {
		return 0, false
	}
	m := a.GetAttr("max_connections")
	if !m.IsKnown() || m.IsNull() {
		return 0, false
	}
	n, _ := m.AsBigFloat().Int64()
	return int(n), true
}

// endpointsOverMaxConnections warns of a listener that more of the
// configuration's own endpoints connect to than its accept.max_connections
// admits, when the plan makes one of them: the agent rejects the
// connections over the limit, and apply fails for those endpoints.
func endpointsOverMaxConnections(cfg *config.Config, p *Plan) hcl.Diagnostics {
	type target struct {
		address   string
		port      int
		portSpace config.PortSpace
	}
	var limited []*config.Instance // few: not cfg.SortedInstances, which sorts every instance
	for _, inst := range cfg.Instances {
		if l := inst.Listener; l != nil && l.Accept.MaxConnections > 0 && inst.Known("address") && inst.Known("port") {
			limited = append(limited, inst)
		}
	}
	if len(limited) == 0 {
		return nil
	}
	sort.Slice(limited, func(i, j int) bool { return limited[i].Addr.Less(limited[j].Addr) })
	toward := map[target][]addrs.Instance{} // endpoints by what they connect to
	for a, inst := range cfg.Instances {
		if e := inst.Endpoint; e != nil && e.Address != "" && e.Port != 0 && inst.Known("address") && inst.Known("port") {
			t := target{e.Address, e.Port, e.PortSpace}
			toward[t] = append(toward[t], a)
		}
	}
	var diags hcl.Diagnostics
	for _, inst := range limited {
		l := inst.Listener
		var eps []addrs.Instance
		for t, as := range toward {
			if t.port == l.Port && t.portSpace == l.PortSpace && (t.address == l.Address || isWildcard(l.Address)) {
				eps = append(eps, as...)
			}
		}
		if len(eps) <= l.Accept.MaxConnections || !anyMade(p, eps) {
			continue
		}
		rng := inst.Resource.DeclRange
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "More endpoints than the listener's max_connections",
			Detail: fmt.Sprintf("%d endpoints of this configuration connect to %s (%s), which accepts at most %d (accept.max_connections): the agent rejects the connections over the limit, and apply fails for those endpoints (REJECTED).",
				len(eps), inst.Addr, net.JoinHostPort(l.Address, strconv.Itoa(l.Port)), l.Accept.MaxConnections),
			Subject: &rng})
	}
	return diags
}

// anyMade reports whether the plan creates (or replaces) one of as.
func anyMade(p *Plan, as []addrs.Instance) bool {
	for _, a := range as {
		if c := p.Change(a); c != nil && (c.Action == Create || c.Action.IsReplace()) {
			return true
		}
	}
	return false
}

// isWildcard reports whether a listener on address listens on every
// address of its family (0.0.0.0, ::).
func isWildcard(address string) bool {
	ip, err := netip.ParseAddr(address)
	return err == nil && ip.IsUnspecified()
}
