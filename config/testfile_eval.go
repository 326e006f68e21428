package config

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
)

// TestScope is what a test's assertions see: the objects as the run left
// them, the outputs, and the agent's live view of each object.
type TestScope struct {
	// Values gives each object's value (the state's after an apply, the
	// plan's after a plan).
	Values func(addrs.Instance) (cty.Value, bool)
	// Outputs are the root outputs by name (output.NAME).
	Outputs map[string]cty.Value
	// Live gives each object's live view (LiveType), or false when the
	// agent holds none for it.
	Live func(addrs.Instance) (cty.Value, bool)
}

// LiveProbeType is an endpoint's probe statistics in the live view: round
// trips in milliseconds.
var LiveProbeType = cty.Object(map[string]cty.Type{
	"mode": cty.String, "sent": cty.Number, "received": cty.Number, "lost": cty.Number,
	"last_ms": cty.Number, "min_ms": cty.Number, "mean_ms": cty.Number, "max_ms": cty.Number,
	"degraded": cty.Bool,
})

// LiveType is one object in the live view (live.endpoint.NAME[0]):
// status is the agent's word ("established", "listening", "ready", or
// "absent" when the agent holds nothing for it); probe is null without
// probes.
var LiveType = cty.Object(map[string]cty.Type{
	"status": cty.String, "connections": cty.Number, "reconnects": cty.Number,
	"error": cty.String, "probe": LiveProbeType,
})

// absentLive is the live view of an object the agent does not hold.
var absentLive = cty.ObjectVal(map[string]cty.Value{
	"status": cty.StringVal("absent"), "connections": cty.Zero, "reconnects": cty.Zero,
	"error": cty.StringVal(""), "probe": cty.NullVal(LiveProbeType),
})

// testRoots are the names test assertions may use beside the
// configuration's.
const (
	testOutput = "output"
	testLive   = "live"
)

// CheckTestRefs checks an assertion's references against the
// configuration's declarations: var, local, the blocks, output.NAME and
// live.KIND.NAME.
func (c *Config) CheckTestRefs(expr hcl.Expression) hcl.Diagnostics {
	var own []hcl.Traversal
	var diags hcl.Diagnostics
	for _, tr := range expr.Variables() {
		switch tr.RootName() {
		case testOutput:
			name, ok := attrAfterRoot(tr)
			if !ok {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid reference", Detail: "An output is referenced as output.NAME.", Subject: tr.SourceRange().Ptr()})
				continue
			}
			if _, declared := c.Outputs[name]; !declared {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Reference to undeclared output value",
					Detail: fmt.Sprintf("An output value named %q has not been declared.%s", name, DidYouMean(name, mapKeys(c.Outputs))), Subject: tr.SourceRange().Ptr()})
			}
		case testLive:
			// live.KIND.NAME[KEY].ATTR: the block as KIND.NAME, the
			// attribute one of the live view's.
			if len(tr) < 3 {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid reference", Detail: "The live view is referenced as live.KIND.NAME, such as live.endpoint.client[0].status.", Subject: tr.SourceRange().Ptr()})
				continue
			}
			own = append(own, hcl.Traversal{hcl.TraverseRoot{Name: attrName(tr[1]), SrcRange: tr[1].SourceRange()}, tr[2]})
			diags = append(diags, checkLiveAttrs(tr[3:])...)
		default:
			own = append(own, tr)
		}
	}
	d := &declarations{variables: c.Variables, locals: make(map[string]*hcl.Attribute, len(c.Locals)), resources: c.Resources, agents: c.agentBlocks}
	for name := range c.Locals {
		d.locals[name] = nil
	}
	_, rd := d.collectRefs(nil, "", own...)
	return append(diags, rd...)
}

func attrName(t hcl.Traverser) string {
	if a, ok := t.(hcl.TraverseAttr); ok {
		return a.Name
	}
	return ""
}

// attrAfterRoot is the name after a traversal's root (output.NAME).
func attrAfterRoot(tr hcl.Traversal) (string, bool) {
	if len(tr) < 2 {
		return "", false
	}
	a, ok := tr[1].(hcl.TraverseAttr)
	return a.Name, ok
}

// checkLiveAttrs checks what follows an object in the live view (after
// its instance key, if any): one of LiveType's attributes, and within
// probe one of LiveProbeType's.
func checkLiveAttrs(rest hcl.Traversal) hcl.Diagnostics {
	for len(rest) > 0 {
		if _, ok := rest[0].(hcl.TraverseAttr); ok {
			break
		}
		rest = rest[1:] // the instance's key: checked when evaluated
	}
	ty := LiveType
	for _, step := range rest {
		a, ok := step.(hcl.TraverseAttr)
		if !ok || !ty.IsObjectType() {
			break
		}
		if !ty.HasAttribute(a.Name) {
			names := make([]string, 0, len(ty.AttributeTypes()))
			for n := range ty.AttributeTypes() {
				names = append(names, n)
			}
			return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Unsupported attribute",
				Detail: fmt.Sprintf("The live view has no attribute named %q.%s Its attributes are status, connections, reconnects, error and probe (mode, sent, received, lost, last_ms, min_ms, mean_ms, max_ms, degraded).", a.Name, DidYouMean(a.Name, names)), Subject: a.SrcRange.Ptr()}}
		}
		ty = ty.AttributeType(a.Name)
	}
	return nil
}

// EvalTest evaluates an assertion's expression in scope (CheckTestRefs
// first); it returns the context too, for the diagnostic that shows the
// values it read.
func (c *Config) EvalTest(expr hcl.Expression, scope TestScope) (cty.Value, *hcl.EvalContext, hcl.Diagnostics) {
	if diags := c.CheckTestRefs(expr); diags.HasErrors() {
		return cty.DynamicVal, nil, diags
	}
	var own []hcl.Traversal
	for _, tr := range expr.Variables() {
		if r := tr.RootName(); r != testOutput && r != testLive {
			own = append(own, tr)
		}
	}
	ctx := c.contextWith(own, scope.Values)
	outputs := map[string]cty.Value{}
	for name, v := range scope.Outputs {
		outputs[name] = v
	}
	ctx.Variables[testOutput] = cty.ObjectVal(outputs)
	ctx.Variables[testLive] = c.liveValue(scope.Live)
	v, diags := c.evalIn(expr, ctx)
	return v, ctx, diags
}

// liveValue is the live view of every block, shaped as the blocks are
// (a list with count, a map with for_each): live.endpoint.client[0].
func (c *Config) liveValue(liveOf func(addrs.Instance) (cty.Value, bool)) cty.Value {
	kinds := map[string]map[string]cty.Value{}
	for _, k := range addrs.Kinds {
		kinds[string(k)] = map[string]cty.Value{}
	}
	byResource := c.instancesByResource()
	for addr, r := range c.Resources {
		insts := byResource[addr]
		values := make([]cty.Value, len(insts))
		for i, inst := range insts {
			values[i] = absentLive
			if liveOf != nil {
				if v, ok := liveOf(inst.Addr); ok {
					values[i] = v
				}
			}
		}
		var v cty.Value
		switch {
		case r.Count != nil:
			v = cty.ListValEmpty(LiveType)
			if len(values) > 0 {
				v = cty.ListVal(values)
			}
		case r.ForEach != nil:
			m := make(map[string]cty.Value, len(values))
			for i, inst := range insts {
				if k, ok := inst.Addr.Key.(addrs.StringKey); ok {
					m[string(k)] = values[i]
				}
			}
			v = cty.MapValEmpty(LiveType)
			if len(m) > 0 {
				v = cty.MapVal(m)
			}
		case len(values) == 1:
			v = values[0]
		default:
			v = cty.NullVal(LiveType)
		}
		kinds[string(addr.Kind)][addr.Name] = v
	}
	out := map[string]cty.Value{}
	for k, m := range kinds {
		out[k] = cty.ObjectVal(m)
	}
	return cty.ObjectVal(out)
}

// LiveValue is one object's live view (LiveType); probe is nil without
// probes.
func LiveValue(status string, connections, reconnects int, errWords string, probe *LiveProbe) cty.Value {
	p := cty.NullVal(LiveProbeType)
	if probe != nil {
		p = cty.ObjectVal(map[string]cty.Value{
			"mode": cty.StringVal(probe.Mode), "sent": cty.NumberUIntVal(probe.Sent), "received": cty.NumberUIntVal(probe.Received), "lost": cty.NumberUIntVal(probe.Lost),
			"last_ms": cty.NumberFloatVal(probe.LastMS), "min_ms": cty.NumberFloatVal(probe.MinMS), "mean_ms": cty.NumberFloatVal(probe.MeanMS), "max_ms": cty.NumberFloatVal(probe.MaxMS),
			"degraded": cty.BoolVal(probe.Degraded),
		})
	}
	return cty.ObjectVal(map[string]cty.Value{
		"status": cty.StringVal(status), "connections": cty.NumberIntVal(int64(connections)), "reconnects": cty.NumberIntVal(int64(reconnects)),
		"error": cty.StringVal(errWords), "probe": p,
	})
}

// LiveProbe is an endpoint's probe statistics, as the agent reports them.
type LiveProbe struct {
	Mode                         string
	Sent, Received, Lost         uint64
	LastMS, MinMS, MeanMS, MaxMS float64
	Degraded                     bool
}
