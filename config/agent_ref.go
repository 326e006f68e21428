package config

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// agentRef is an object's agent meta-argument: a static reference to an
// agent block, agent.NAME, with an index chosen per instance when the
// block is expanded (agent.storage[each.key]), as OpenTofu 1.9's
// provider references of for_each'd provider configurations.
type agentRef struct {
	expr      hcl.Expression // as written
	name      string
	nameRange hcl.Range      // agent.NAME
	index     hcl.Expression // nil without one
}

// badAgentRef is the error for an agent argument that is not a reference
// to an agent block.
func badAgentRef(expr hcl.Expression, what string) hcl.Diagnostics {
	return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid agent reference",
		Detail:  "agent takes a reference to an agent block, such as agent.compute or agent.storage[each.key]" + what + ".",
		Subject: expr.Range().Ptr()}}
}

// parseAgentRef reads the agent meta-argument without evaluating it.
func parseAgentRef(expr hcl.Expression) (*agentRef, hcl.Diagnostics) {
	syn, ok := expr.(hclsyntax.Expression)
	if !ok {
		// JSON syntax: the reference is written as a string, as
		// Terraform's provider argument is in JSON.
		v, diags := expr.Value(nil)
		if diags.HasErrors() || v.Type() != cty.String || !v.IsKnown() || v.IsNull() {
			return nil, badAgentRef(expr, "")
		}
		start := expr.Range().Start
		start.Column++
		start.Byte++ // after the opening quote
		parsed, pd := hclsyntax.ParseExpression([]byte(v.AsString()), expr.Range().Filename, start)
		if pd.HasErrors() {
			return nil, badAgentRef(expr, "")
		}
		syn = parsed
	}
	ref := &agentRef{expr: expr}
	var tr hcl.Traversal
	switch e := syn.(type) {
	case *hclsyntax.ScopeTraversalExpr:
		tr = e.Traversal
		if len(tr) == 3 {
			if ix, ok := tr[2].(hcl.TraverseIndex); ok {
				ref.index = hcl.StaticExpr(ix.Key, ix.SrcRange)
				tr = tr[:2]
			}
		}
	case *hclsyntax.IndexExpr:
		if c, ok := e.Collection.(*hclsyntax.ScopeTraversalExpr); ok {
			tr, ref.index = c.Traversal, e.Key
		}
	case *hclsyntax.TemplateExpr, *hclsyntax.LiteralValueExpr:
		return nil, badAgentRef(expr, ", not a value: write it without quotes")
	}
	if len(tr) != 2 || tr.RootName() != agentKind {
		return nil, badAgentRef(expr, ", with an index only when the agent block has count or for_each")
	}
	name, ok := tr[1].(hcl.TraverseAttr)
	if !ok {
		return nil, badAgentRef(expr, "")
	}
	ref.name, ref.nameRange = name.Name, tr.SourceRange()
	return ref, nil
}

// refs types the references of r's index and adds the agent block the
// object depends on (agent.NAME), reporting an undeclared one.
func (d *declarations) agentRefRefs(r *agentRef, expand string) ([]*reference, hcl.Diagnostics) {
	a, ok := d.agents[r.name]
	if !ok {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Reference to undeclared agent",
			Detail:  fmt.Sprintf("An agent named %q is not declared in this configuration.%s", r.name, DidYouMean(r.name, mapKeys(d.agents))),
			Subject: r.nameRange.Ptr()}}
	}
	if r.index != nil && !a.expanded() {
		// The index is not used, so its references are not checked.
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Unexpected agent index",
			Detail:  fmt.Sprintf("agent.%s has neither count nor for_each, so it is not indexed: write agent.%s.", a.name, a.name),
			Subject: r.index.Range().Ptr()}}
	}
	var diags hcl.Diagnostics
	var refs []*reference
	if r.index != nil {
		refs, diags = d.collectRefs([]hcl.Expression{r.index}, expand)
	}
	return append(refs, &reference{kind: refAgent, root: agentKind, name: r.name, rng: r.nameRange}), diags
}

// resolveAgent is the Key of the agent instance ref chooses for the
// instance evaluated in ctx; "" when that is not known (validate mode) or
// was reported.
func (e *evaluator) resolveAgent(ref *agentRef, ctx *hcl.EvalContext) (string, hcl.Diagnostics) {
	e.mu.RLock()
	a := e.decl.agents[ref.name]
	var keys []addrs.Key
	unknown := true
	if a != nil {
		keys, unknown = a.keys, a.instancesUnknown
	}
	e.mu.RUnlock()
	if a == nil || unknown {
		return "", nil // undeclared (reported), or not known in validate mode
	}
	bad := func(summary string, rng hcl.Range, format string, args ...any) (string, hcl.Diagnostics) {
		d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(format, args...), Subject: rng.Ptr()}
		if ref.index != nil {
			d.Expression, d.EvalContext = ref.index, ctx
		}
		return "", hcl.Diagnostics{d}
	}
	meta := "count"
	if a.forEach != nil {
		meta = "for_each"
	}
	switch {
	case ref.index == nil && !a.expanded():
		return a.addr(addrs.NoKey).String(), nil
	case ref.index == nil:
		return bad("Missing agent instance key", ref.expr.Range(),
			"agent.%s has %s, so an object chooses one of its instances: write agent.%s[%s]. %s",
			a.name, meta, a.name, map[bool]string{true: "count.index", false: "each.key"}[a.count != nil], agentKeysText(a, keys))
	case !a.expanded():
		return "", nil // reported by agentRefRefs
	}
	v, diags := ref.index.Value(ctx)
	if diags.HasErrors() {
		return "", diags
	}
	v, _ = v.UnmarkDeep()
	switch {
	case !v.IsKnown():
		if e.l.Validate {
			return "", nil
		}
		return bad("Agent key not known", ref.index.Range(),
			"The key of agent.%s depends on values known only after apply; the agent of an object must be known when planning.", a.name)
	case v.IsNull():
		return bad("Invalid agent key", ref.index.Range(), "The key of agent.%s is null. %s", a.name, agentKeysText(a, keys))
	}
	var key addrs.Key
	if a.count != nil {
		nv, err := convert.Convert(v, cty.Number)
		if err != nil {
			return bad("Invalid agent key", ref.index.Range(), "agent.%s has count, so its index is a whole number: %s.", a.name, err)
		}
		n, acc := nv.AsBigFloat().Int64()
		if acc != big.Exact || n < 0 {
			return bad("Invalid agent key", ref.index.Range(), "agent.%s has count, so its index is a whole number from 0; got %s.", a.name, nv.AsBigFloat().Text('g', 10))
		}
		key = addrs.IntKey(n)
	} else {
		sv, err := convert.Convert(v, cty.String)
		if err != nil {
			return bad("Invalid agent key", ref.index.Range(), "agent.%s has for_each, so its key is a string: %s.", a.name, err)
		}
		key = addrs.StringKey(sv.AsString())
	}
	k := a.addr(key).String()
	e.mu.RLock()
	_, ok := e.cfg.Agents[k]
	e.mu.RUnlock()
	if !ok {
		return bad("No such agent instance", ref.index.Range(), "There is no %s. %s", k, agentKeysText(a, keys))
	}
	return k, nil
}

// agentKeysText says which instances an expanded agent block has.
func agentKeysText(a *agentBlock, keys []addrs.Key) string {
	if len(keys) == 0 {
		return fmt.Sprintf("agent.%s has no instances.", a.name)
	}
	const most = 10
	shown := make([]string, 0, min(len(keys), most)+1)
	for _, k := range keys[:min(len(keys), most)] {
		switch k := k.(type) {
		case addrs.StringKey:
			shown = append(shown, fmt.Sprintf("%q", string(k)))
		case addrs.IntKey:
			shown = append(shown, fmt.Sprint(int(k)))
		}
	}
	if len(keys) > most {
		shown = append(shown, fmt.Sprintf("%d more", len(keys)-most))
	}
	what := "key"
	if a.count != nil {
		what = "index"
	}
	if len(keys) == 1 {
		return fmt.Sprintf("Its only %s is %s.", what, shown[0])
	}
	if a.count != nil {
		what = "indexe"
	}
	return fmt.Sprintf("Its %ss are %s.", what, joinAnd(shown))
}

// agentName is an agent's Key as messages show it.
func agentName(key string) string {
	if key == "" {
		return "the local agent"
	}
	return key
}

// pdMarker begins the stand-in value of a protection domain's id when
// checkPDAgent evaluates a pd argument: the instance and its agent.
const pdMarker = "\x00pd\x00"

// checkPDAgent reports an instance whose pd argument is the id of a
// protection domain on another agent: a protection domain belongs to one
// host's device. The pd expression is evaluated again with each
// protection domain's id standing for the instance and its agent, so that
// protection_domain.p[each.key].id finds the very instance.
func (e *evaluator) checkPDAgent(r *Resource, inst *Instance, ctx *hcl.EvalContext) hcl.Diagnostics {
	a := r.body.attr("pd")
	if a == nil {
		return nil
	}
	pds := map[string]cty.Value{}
	for _, tr := range a.Expr.Variables() {
		if tr.RootName() != string(addrs.ProtectionDomain) || len(tr) < 2 {
			continue
		}
		if name, ok := tr[1].(hcl.TraverseAttr); ok {
			if v, ok := e.pdAgentValue(name.Name); ok {
				pds[name.Name] = v
			}
		}
	}
	if len(pds) == 0 {
		return nil
	}
	child := ctx.NewChild()
	child.Variables = map[string]cty.Value{string(addrs.ProtectionDomain): cty.ObjectVal(pds)}
	v, diags := a.Expr.Value(child)
	if diags.HasErrors() || !v.IsKnown() || v.IsNull() || v.Type() != cty.String {
		return nil
	}
	s, ok := strings.CutPrefix(v.AsString(), pdMarker)
	if !ok {
		return nil
	}
	pd, agent, _ := strings.Cut(s, "\x00")
	if agent == inst.Agent {
		return nil
	}
	return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Protection domain on another agent",
		Detail: fmt.Sprintf("%s is on %s, but its pd is the id of %s, which is on %s: a protection domain belongs to one host's device, so an object can use only one on its own agent. Give them the same agent.",
			r.Addr.Instance(inst.Addr.Key), agentName(inst.Agent), pd, agentName(agent)),
		Subject: a.Expr.Range().Ptr()}}
}

// pdAgentValue is protection domain name's value as checkPDAgent's
// expressions see it: its instances, each with an id that names it and
// its agent. Built once per block.
func (e *evaluator) pdAgentValue(name string) (cty.Value, bool) {
	res := addrs.Resource{Kind: addrs.ProtectionDomain, Name: name}
	e.pdMu.Lock()
	defer e.pdMu.Unlock()
	if v, ok := e.pdAgents[res]; ok {
		return v, true
	}
	e.mu.RLock()
	r := e.decl.resources[res]
	val, known := e.res[res]
	e.mu.RUnlock()
	if r == nil || !known || r.instancesUnknown || !val.IsKnown() {
		return cty.NilVal, false
	}
	id := func(k addrs.Key) cty.Value {
		addr := res.Instance(k)
		e.mu.RLock()
		inst := e.cfg.Instances[addr]
		e.mu.RUnlock()
		agent := ""
		if inst != nil {
			agent = inst.Agent
		}
		return cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal(pdMarker + addr.String() + "\x00" + agent)})
	}
	var v cty.Value
	switch {
	case r.Count != nil:
		n := val.LengthInt()
		if n == 0 {
			v = cty.EmptyTupleVal
			break
		}
		elems := make([]cty.Value, n)
		for i := range elems {
			elems[i] = id(addrs.IntKey(i))
		}
		v = cty.TupleVal(elems)
	case r.ForEach != nil:
		m := map[string]cty.Value{}
		for it := val.ElementIterator(); it.Next(); {
			k, _ := it.Element()
			m[k.AsString()] = id(addrs.StringKey(k.AsString()))
		}
		v = cty.ObjectVal(m)
	default:
		v = id(addrs.NoKey)
	}
	if e.pdAgents == nil {
		e.pdAgents = map[addrs.Resource]cty.Value{}
	}
	e.pdAgents[res] = v
	return v, true
}
