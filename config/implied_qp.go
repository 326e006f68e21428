package config

import "github.com/zclconf/go-cty/cty"

// Echo and probes run over the object's QP. A listener that echoes and an
// endpoint that probes, with no qp block written, get the one `qp {}`
// would give (the port space's natural type, rc for tcp and ib, ud for
// udp and ipoib, and the default caps): the only QP that can serve them,
// so writing it is not asked for. The plan and the state show it as if
// it were written.

// withImpliedQP is obj with the default qp block when it has none and
// needs one; otherwise obj.
func withImpliedQP(obj cty.Value, needs bool, ps PortSpace) cty.Value {
	if !needs || !obj.IsKnown() || obj.IsNull() {
		return obj
	}
	if q := obj.GetAttr("qp"); !q.IsKnown() || !q.IsNull() {
		return obj
	}
	vals := make(map[string]cty.Value, len(qpBlock.Attributes))
	for _, a := range qpBlock.Attributes {
		switch {
		case a.Name == "type":
			vals[a.Name] = cty.StringVal(string(NaturalQPType(ps)))
		case a.Default != cty.NilVal:
			vals[a.Name] = a.Default
		default:
			vals[a.Name] = cty.NullVal(a.Type)
		}
	}
	m := obj.AsValueMap()
	m["qp"] = cty.ObjectVal(vals)
	return cty.ObjectVal(m)
}

// echoes reports whether a listener's value asks for echo.
func echoes(listener cty.Value) bool {
	acc := listener.GetAttr("accept")
	if !acc.IsKnown() || acc.IsNull() {
		return false
	}
	e := acc.GetAttr("echo")
	return e.IsKnown() && !e.IsNull() && e.True()
}

// probes reports whether an endpoint's value has a probe block.
func probes(endpoint cty.Value) bool {
	p := endpoint.GetAttr("probe")
	return p.IsKnown() && !p.IsNull()
}
