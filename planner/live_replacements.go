package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
)

// replaceCutOffEndpoints replaces the endpoints a listener's replacement
// disconnects for good: those connected to the replaced listener's
// address, port and port space that would stay, without a reconnect
// policy. They are created again after the new listener (which they now
// depend on), so that one apply leaves them connected. Those with a
// reconnect policy reconnect by themselves: they are updated after the
// new listener, apply waiting for their new connection, so that what
// the state and the outputs record of it (QP number, local port) is the
// new connection's.
func (p *Plan) replaceCutOffEndpoints() {
	type binding struct{ address, port, portSpace string }
	bindingOf := func(v cty.Value) (binding, bool) {
		if v.IsNull() || !v.IsKnown() || !v.Type().IsObjectType() {
			return binding{}, false
		}
		var b binding
		for _, f := range []struct {
			name string
			dst  *string
		}{{"address", &b.address}, {"port", &b.port}, {"port_space", &b.portSpace}} {
			if !v.Type().HasAttribute(f.name) {
				return binding{}, false
			}
			a := v.GetAttr(f.name)
			if a.IsNull() || !a.IsKnown() {
				return binding{}, false
			}
			*f.dst = a.GoString()
		}
		return b, true
	}
	replaced := map[binding]addrs.Resource{}
	for _, c := range p.Changes {
		if c.Addr.Kind == addrs.Listener && c.Action.IsReplace() {
			if b, ok := bindingOf(c.BeforeValue()); ok {
				replaced[b] = c.Addr.Resource
			}
		}
	}
	if len(replaced) == 0 {
		return
	}
	schema := config.Schema(addrs.Endpoint)
	for _, c := range p.Changes {
		if c.Addr.Kind != addrs.Endpoint || (c.Action != NoOp && c.Action != Update) || c.AfterValue().IsNull() || !c.AfterValue().IsKnown() {
			continue
		}
		r := c.AfterValue().GetAttr("reconnect")
		if !r.IsKnown() {
			continue
		}
		b, ok := bindingOf(c.AfterValue())
		l, cut := replaced[b]
		if !ok || !cut {
			continue
		}
		if r.IsNull() {
			c.Action, c.Reason = DeleteThenCreate, ReasonListenerReplaced
			c.SetAfter(withoutComputed(schema, c.AfterValue()))
		} else {
			c.Action, c.Reconnects = Update, true
			if c.Reason == ReasonNone {
				c.Reason = ReasonListenerReconnect
			}
			c.SetAfter(withNewConnection(c.AfterValue()))
		}
		if !slices.Contains(c.Dependencies, l) {
			c.Dependencies = append(slices.Clip(c.Dependencies), l)
		}
	}
}

// failedForGood reports whether the agent's status for a prior object says
// it failed and will not recover by itself: a protection domain or
// listener in error; an endpoint without a reconnect policy in error,
// rejected or disconnected (with a policy the agent tries again after
// any of them).
func failedForGood(pr *prior, status string) bool {
	if status != "error" && status != "rejected" && status != "disconnected" {
		return false
	}
	if pr.obj.Addr.Kind != addrs.Endpoint {
		return status == "error"
	}
	if pr.null() {
		return false
	}
	// From the fields: the agent reports every endpoint that waits to
	// reconnect (all of them, on a host without RDMA).
	r, ok := pr.fields.named("reconnect")
	return ok && r.IsKnown() && r.IsNull()
}

// listenerReplacements lists the endpoints replaced with the listener they
// connect to (ReasonListenerReplaced).
func (p *Plan) listenerReplacements() []addrs.Instance {
	var out []addrs.Instance
	for _, c := range p.Changes {
		if c.Reason == ReasonListenerReplaced {
			out = append(out, c.Addr)
		}
	}
	return out
}

// cutOffOutsideTargets warns of the endpoints among cutOff that -target
// left out: their listener is replaced, and without a reconnect block they
// stay disconnected until a later apply replaces them.
func (p *Plan) cutOffOutsideTargets(cutOff []addrs.Instance) hcl.Diagnostics {
	var left []string
	for _, a := range cutOff {
		if p.Change(a) == nil {
			left = append(left, a.String())
		}
	}
	if len(left) == 0 {
		return nil
	}
	return hcl.Diagnostics{sourceless(hcl.DiagWarning, "Endpoints left disconnected",
		fmt.Sprintf("%s connect to a listener this plan replaces and have no reconnect block, and -target leaves them out: they stay disconnected after this apply, until one that includes them (the next plan replaces them). Add them to -target to replace them with the listener.", strings.Join(left, ", ")))}
}

// withNewConnection is an endpoint's value with what a new connection
// changes unknown: its QP number and its local port (its id, device and
// local address stay).
func withNewConnection(v cty.Value) cty.Value {
	m := v.AsValueMap()
	for _, name := range []string{"qp_num", "local_port"} {
		if _, ok := m[name]; ok {
			m[name] = cty.UnknownVal(cty.Number)
		}
	}
	return cty.ObjectVal(m)
}
