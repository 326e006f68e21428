package config

import (
	"fmt"
	"net"
	"net/netip"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
)

// agentKind is the root name of agent blocks' addresses (agent.compute,
// agent.storage["s1"]). It is not an addrs.Kind of managed objects: an
// agent is how objects are reached, not an object of the fabric.
const agentKind = "agent"

// agentBlockSchema is an agent block's body besides count and for_each.
var agentBlockSchema = &Block{
	Attributes: []*Attribute{
		{Name: "address", Type: cty.String, Required: true, Description: "HOST:PORT the agent serves mutual TLS on"},
	},
	Blocks: []*NestedBlock{{Name: "tls", Block: &Block{Attributes: []*Attribute{
		{Name: "ca_file", Type: cty.String, Required: true, Description: "the CA certificate the agent's certificate must chain to"},
		{Name: "cert_file", Type: cty.String, Required: true, Description: "the CLI's client certificate"},
		{Name: "key_file", Type: cty.String, Required: true, Description: "the client certificate's private key"},
		{Name: "server_name", Type: cty.String, Description: "the name the agent's certificate must hold; the address's host when omitted"},
	}}}},
}

var agentMetaSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "count"}, {Name: "for_each"}}}

// agentBlock is an agent block, decoded but not evaluated.
type agentBlock struct {
	name           string
	count, forEach hcl.Expression
	body           *bodyTemplate
	declRange      hcl.Range
	key            string // "agent.NAME", its graph node

	// Set by evalAgent (under evaluator.mu): its instances' keys, in
	// order, and whether they are unknown (validate mode).
	keys             []addrs.Key
	instancesUnknown bool
	// badRefs: one of its references was reported, so an unknown
	// address is a consequence, not another error.
	badRefs bool
}

func (a *agentBlock) expanded() bool { return a.count != nil || a.forEach != nil }

func (a *agentBlock) addr(k addrs.Key) addrs.Instance {
	return addrs.Instance{Resource: addrs.Resource{Kind: agentKind, Name: a.name}, Key: k}
}

func (d *declarations) addAgent(b *hcl.Block) hcl.Diagnostics {
	name := b.Labels[0]
	if prev, dup := d.agents[name]; dup {
		return hcl.Diagnostics{duplicateDiag(fmt.Sprintf("agent %q", name), b.DefRange, prev.declRange)}
	}
	meta, rest, diags := b.Body.PartialContent(agentMetaSchema)
	a := &agentBlock{name: name, declRange: b.DefRange, key: agentKind + "." + name}
	if m, ok := meta.Attributes["count"]; ok {
		a.count = m.Expr
	}
	if m, ok := meta.Attributes["for_each"]; ok {
		a.forEach = m.Expr
	}
	if a.count != nil && a.forEach != nil {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid combination of count and for_each",
			Detail:  "The count and for_each meta-arguments are mutually exclusive; only one may be used on a block.",
			Subject: meta.Attributes["for_each"].NameRange.Ptr()})
		a.forEach = nil
	}
	body, bd := decodeBodyTemplate(rest, agentBlockSchema, b.DefRange)
	a.body = body
	d.agents[name] = a
	return append(diags, bd...)
}

// agentNode types an agent block's references and makes its graph node.
// An agent is reached before any object is made, so its expressions may
// use variables, local values and other agents, not objects.
func (e *evaluator) agentNode(a *agentBlock) ([]*reference, hcl.Diagnostics) {
	expand := ""
	switch {
	case a.count != nil:
		expand = "count"
	case a.forEach != nil:
		expand = "each"
	}
	refs, diags := e.decl.collectRefs([]hcl.Expression{a.count, a.forEach}, expand, a.body.allTraversals()...)
	a.badRefs = diags.HasErrors()
	for _, r := range refs {
		if r.kind == refResource {
			a.badRefs = true
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid reference in an agent block",
				Detail:  fmt.Sprintf("An agent block can use variables, local values and other agents, not %s: the CLI reaches the agent before any object is made.", r.res),
				Subject: r.rng.Ptr()})
			r.kind = refInvalid
		}
	}
	for _, meta := range []hcl.Expression{a.count, a.forEach} {
		if meta == nil {
			continue
		}
		for _, tr := range meta.Variables() {
			if n := tr.RootName(); n == "count" || n == "each" {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid reference",
					Detail: n + ".* is not available in count or for_each themselves.", Subject: tr.SourceRange().Ptr()})
			}
		}
	}
	return refs, diags
}

// evalAgent expands an agent block and records its instances in
// Config.Agents and its value for the expressions that read it.
func (e *evaluator) evalAgent(a *agentBlock) hcl.Diagnostics {
	ctx := e.ctx(e.refs[a.key])
	keys, known, diags := e.expandMeta(a.count, a.forEach, ctx)
	if diags.HasErrors() || !known {
		if !diags.HasErrors() {
			// Validate mode: check the body once with unknown keys.
			child := ctx.NewChild()
			child.Variables = unknownKeyVars()
			_, d := e.evalAgentInstance(a, addrs.NoKey, child, false)
			diags = append(diags, d...)
		}
		e.mu.Lock()
		a.instancesUnknown = true
		e.agentVals[a.name] = cty.DynamicVal
		e.mu.Unlock()
		return e.withoutUnknownDynamicForEach(diags)
	}
	agents := make([]*Agent, 0, len(keys))
	values := make([]cty.Value, 0, len(keys))
	for _, k := range keys {
		if k.key != addrs.NoKey {
			if d := checkAgentKey(a, k.key); d != nil {
				e.mu.Lock()
				a.instancesUnknown = true // reported: its objects say nothing more
				e.agentVals[a.name] = cty.DynamicVal
				e.mu.Unlock()
				return append(diags, d)
			}
		}
		ictx := ctx
		if k.vars != nil {
			ictx = ctx.NewChild()
			ictx.Variables = k.vars
		}
		ag, d := e.evalAgentInstance(a, k.key, ictx, len(keys) > 1)
		diags = append(diags, e.withoutUnknownDynamicForEach(d)...)
		agents = append(agents, ag)
		values = append(values, ag.value)
	}
	all := blockValue(a.count != nil, a.forEach != nil, keys, values)
	e.mu.Lock()
	defer e.mu.Unlock()
	for i, ag := range agents {
		e.cfg.Agents[ag.Key] = ag
		a.keys = append(a.keys, keys[i].key)
	}
	e.agentVals[a.name] = all
	return diags
}

// unknownKeyVars are count and each with unknown values, for checking a
// block whose count or for_each is not known yet.
func unknownKeyVars() map[string]cty.Value {
	return map[string]cty.Value{
		"count": cty.ObjectVal(map[string]cty.Value{"index": cty.UnknownVal(cty.Number)}),
		"each":  cty.ObjectVal(map[string]cty.Value{"key": cty.UnknownVal(cty.String), "value": cty.DynamicVal}),
	}
}

// checkAgentKey refuses a for_each key that would not read well in an
// agent's address (it is shown with every object on it).
func checkAgentKey(a *agentBlock, k addrs.Key) *hcl.Diagnostic {
	s, ok := k.(addrs.StringKey)
	if !ok {
		return nil
	}
	for _, c := range string(s) {
		if c < ' ' || c == 0x7f {
			return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid instance name",
				Detail:  fmt.Sprintf("The for_each key %q holds the character %U, which is not printable: keys name agents on terminals and in logs.", string(s), c),
				Subject: a.forEach.Range().Ptr()}
		}
	}
	return nil
}

// evalAgentInstance evaluates and checks one instance of an agent block.
func (e *evaluator) evalAgentInstance(a *agentBlock, k addrs.Key, ctx *hcl.EvalContext, reuse bool) (*Agent, hcl.Diagnostics) {
	var sens sensitivePaths
	v, diags := evalBody(a.body, ctx, reuse, &sens)
	ag := &Agent{Key: a.addr(k).String(), DeclRange: a.declRange, value: v, addr: a.addr(k), body: a.body}
	c := &checker{ctx: ctx}
	if av := v.GetAttr("address"); av.IsKnown() && !av.IsNull() {
		ag.Address = av.AsString()
		c.agentAddress(a.body, ag.Address)
	} else if !av.IsKnown() && !e.l.Validate && !a.badRefs {
		c.attrErrorf(a.body, "address", "Agent address not known",
			"The address of %s depends on values known only after apply; the CLI must know where the agent is when planning. Use variables and local values.", ag.Key)
	}
	tv := v.GetAttr("tls")
	switch {
	case !tv.IsKnown():
	case tv.IsNull():
		c.errorf(a.declRange, "Missing tls block",
			"%s has no tls block. The CLI talks to remote agents only over mutual TLS (there is no plaintext mode), so it needs the files to prove itself and to check the agent: add\n  tls {\n    ca_file   = \"pki/ca.pem\"        # the CA the agent's certificate chains to\n    cert_file = \"pki/operator.pem\"  # the CLI's certificate\n    key_file  = \"pki/operator-key.pem\"\n  }", ag.Key)
	default:
		tt := a.body.child("tls")
		ag.TLS = AgentTLS{
			CAFile:     e.agentFile(c, tv, tt, "ca_file"),
			CertFile:   e.agentFile(c, tv, tt, "cert_file"),
			KeyFile:    e.agentFile(c, tv, tt, "key_file"),
			ServerName: c.str(tv, "server_name"),
		}
	}
	return ag, append(diags, c.diags...)
}

// agentFile is a tls block's file path, relative paths resolved against
// the configuration's directory (see AgentTLS). The file is not read: the
// CLI reads it when it dials the agent.
func (e *evaluator) agentFile(c *checker, tls cty.Value, t *bodyTemplate, name string) string {
	v := tls.GetAttr(name)
	if !v.IsKnown() || v.IsNull() {
		return ""
	}
	p := v.AsString()
	if strings.TrimSpace(p) == "" {
		c.attrErrorf(t, name, "Invalid file name", "%s must name a file; it is empty.", name)
		return ""
	}
	if e.dir != "" && !filepath.IsAbs(p) {
		p = filepath.Join(e.dir, p)
	}
	return p
}

// agentAddress checks an agent's HOST:PORT.
func (c *checker) agentAddress(t *bodyTemplate, s string) {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		c.attrErrorf(t, "address", "Invalid agent address",
			"address must be HOST:PORT, such as \"10.77.1.3:7470\" (an IPv6 address in brackets: \"[fd77::3]:7470\"); %q is not: %s.", s, strings.TrimPrefix(err.Error(), "address "+s+": "))
		return
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		c.attrErrorf(t, "address", "Invalid agent address",
			"The port of address %q must be a number from 1 to 65535; got %q.", s, port)
		return
	}
	if host == "" || !validHost(host) {
		c.attrErrorf(t, "address", "Invalid agent address",
			"The host of address %q must be an IPv4 or IPv6 address or a host name; got %q.", s, host)
	}
}

// normalAgentAddress is address with its host written one way, so that
// [FD77:0::1]:7470 and [fd77::1]:7470 compare equal.
func normalAgentAddress(address string) string {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return address
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		host = ip.String()
	}
	return net.JoinHostPort(strings.ToLower(host), port)
}

// checkAgentAddresses reports two agent instances with the same address:
// one agent would be reached twice under two names, and its objects
// would be planned twice.
func checkAgentAddresses(cfg *Config) hcl.Diagnostics {
	agents := make([]*Agent, 0, len(cfg.Agents))
	for _, a := range cfg.Agents {
		if a.Address != "" {
			agents = append(agents, a)
		}
	}
	sort.Slice(agents, func(i, j int) bool { return agents[i].addr.Less(agents[j].addr) })
	seen := map[string]*Agent{}
	var diags hcl.Diagnostics
	for _, a := range agents {
		k := normalAgentAddress(a.Address)
		prev, dup := seen[k]
		if !dup {
			seen[k] = a
			continue
		}
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate agent address",
			Detail: fmt.Sprintf("%s and %s (declared at %s) both have the address %s: one host's agent would be reached under two names and its objects planned twice. Give each agent its own address.",
				a.Key, prev.Key, prev.DeclRange, a.Address),
			Subject: a.body.attrRange("address").Ptr()})
	}
	return diags
}

// agentsValue is the agent root of expressions: each agent block's value
// (a tuple with count, an object by key with for_each) with its address
// and tls attributes.
func agentsValue(vals map[string]cty.Value) cty.Value {
	if len(vals) == 0 {
		return cty.EmptyObjectVal
	}
	return cty.ObjectVal(vals)
}
