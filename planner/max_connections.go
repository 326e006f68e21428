package planner

import (
	"fmt"

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
		if c.Action != Update || c.AfterValue().IsNull() || !c.AfterValue().Type().IsObjectType() || !c.AfterValue().Type().HasAttribute("accept") {
			continue
		}
		pr := pre.byAddr[c.Addr.String()]
		if pr == nil {
			continue
		}
		limit, ok := maxConnections(c.AfterValue())
		if !ok || limit == 0 {
			continue
		}
		n := live[AgentHandle(pr.obj)].Connections - endpointsDeletedToward(p, pre, c.AfterValue())
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
		if pr == nil || pr.null() {
			continue
		}
		a, _ := pr.fields.named("address")
		pt, _ := pr.fields.named("port")
		if a != cty.NilVal && pt != cty.NilVal && a.IsKnown() && pt.IsKnown() && a.Equals(addr).True() && pt.Equals(port).True() {
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

// endpointsOverMaxConnections is config's warning of endpoints over a
// listener's max_connections, given when the plan makes one of them.
func endpointsOverMaxConnections(cfg *config.Config, p *Plan) hcl.Diagnostics {
	return cfg.EndpointsOverMaxConnections(func(eps []addrs.Instance) bool { return anyMade(p, eps) })
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
