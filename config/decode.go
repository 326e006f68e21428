package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// Phase one: decode the top level of every file into declarations, without
// evaluating anything that may reference other blocks.

var rootSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{
	{Type: "rdmaform"},
	{Type: "variable", LabelNames: []string{"name"}},
	{Type: "locals"},
	{Type: "output", LabelNames: []string{"name"}},
	{Type: "moved"},
	{Type: "removed"},
	{Type: "import"},
	{Type: "check", LabelNames: []string{"name"}},
	{Type: "agent", LabelNames: []string{"name"}},
	{Type: string(addrs.ProtectionDomain), LabelNames: []string{"name"}},
	{Type: string(addrs.Listener), LabelNames: []string{"name"}},
	{Type: string(addrs.Endpoint), LabelNames: []string{"name"}},
}}

var metaSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "count"}, {Name: "for_each"}, {Name: "depends_on"}, {Name: "agent"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "lifecycle"}},
}

var variableSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "type"}, {Name: "default"}, {Name: "description"}, {Name: "sensitive"}, {Name: "nullable"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "validation"}},
}

var validationSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "condition", Required: true}, {Name: "error_message", Required: true},
}}

var outputSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "value", Required: true}, {Name: "description"}, {Name: "sensitive"}, {Name: "depends_on"},
}, Blocks: []hcl.BlockHeaderSchema{{Type: "precondition"}}}

// bodyTemplate is a block body decoded against its schema but not yet
// evaluated; each instance evaluates it with its own EvalContext.
type bodyTemplate struct {
	schema *Block
	attrs  []attrSlot      // by index in schema.Attributes
	blocks []*bodyTemplate // by index in schema.Blocks; nil when omitted
	def    hcl.Range

	// A body without references evaluates the same for every instance:
	// built is its value once built (for a qp block, with the default
	// type of port space builtPS).
	static  bool
	built   cty.Value
	builtPS cty.Value
	omitted []*bodyTemplate // empty templates of omitted blocks, by index

	traversals []hcl.Traversal // every reference of the attributes (not nested blocks)

	dynamic *dynamicBlock // a nested block made by a dynamic block
}

// attrSlot is one attribute of a template.
type attrSlot struct {
	attr *hcl.Attribute // nil when not set
	// constant: the expression has no references, so it evaluates the
	// same for every instance; val is its converted value once computed.
	constant bool
	// sensitive: val was sensitive (sensitive("x") has no references).
	// Next to constant, in its padding: a template's slots are many.
	sensitive bool
	val       cty.Value
}

// attr returns the attribute name as set in the body, or nil.
func (t *bodyTemplate) attr(name string) *hcl.Attribute {
	if i := t.schema.attrIndex(name); i >= 0 {
		return t.attrs[i].attr
	}
	return nil
}

// attrRange is where a diagnostic about attribute name points: its value,
// or the block header when it was omitted.
func (t *bodyTemplate) attrRange(name string) hcl.Range {
	if a := t.attr(name); a != nil {
		return a.Expr.Range()
	}
	return t.def
}

// child is the template of a nested block; an omitted block is an empty
// template pointing at its parent's header.
func (t *bodyTemplate) child(name string) *bodyTemplate {
	i := t.schema.blockIndex(name)
	if c := t.blocks[i]; c != nil {
		return c
	}
	return t.emptyChild(i)
}

// emptyChild is the template of the i-th nested block when it is omitted.
func (t *bodyTemplate) emptyChild(i int) *bodyTemplate {
	if t.omitted == nil {
		t.omitted = make([]*bodyTemplate, len(t.blocks))
	}
	if c := t.omitted[i]; c != nil {
		return c
	}
	nb := t.schema.Blocks[i].Block
	c := &bodyTemplate{schema: nb, attrs: make([]attrSlot, len(nb.Attributes)), blocks: make([]*bodyTemplate, len(nb.Blocks)), def: t.def, static: true}
	t.omitted[i] = c // omitted blocks are static; build them once
	return c
}

// allTraversals returns the references of t and its nested blocks.
func (t *bodyTemplate) allTraversals() []hcl.Traversal {
	out := t.traversals
	for _, c := range t.blocks {
		if c != nil {
			out = append(out[:len(out):len(out)], c.allTraversals()...)
		}
	}
	return out
}

func decodeBodyTemplate(body hcl.Body, schema *Block, def hcl.Range) (*bodyTemplate, hcl.Diagnostics) {
	return decodeTemplate(body, schema, def, true)
}

// decodeTemplate is decodeBodyTemplate; fast allows reading a body that
// HCL would accept without a diagnostic straight from the syntax tree
// (see content.go): the outcome is the same.
func decodeTemplate(body hcl.Body, schema *Block, def hcl.Range, fast bool) (*bodyTemplate, hcl.Diagnostics) {
	t := &bodyTemplate{schema: schema, attrs: make([]attrSlot, len(schema.Attributes)), blocks: make([]*bodyTemplate, len(schema.Blocks)), def: def, static: true}
	var diags hcl.Diagnostics
	if sb, ok := body.(*hclsyntax.Body); ok && fast && acceptsAll(sb, schema) {
		attrs := make([]hcl.Attribute, len(sb.Attributes))
		n := 0
		for _, sa := range schema.Attributes {
			if a, ok := sb.Attributes[sa.Name]; ok {
				attrs[n] = hcl.Attribute{Name: a.Name, Expr: a.Expr, Range: a.SrcRange, NameRange: a.NameRange}
				t.setAttr(&attrs[n], fast)
				n++
			}
		}
		for _, b := range sb.Blocks {
			diags = append(diags, t.addBlock(b.Type, b.Body, b.DefRange(), fast)...)
		}
		return t, diags
	}
	content, diags := body.Content(schema.bodySchema)
	for _, sa := range schema.Attributes {
		a, ok := content.Attributes[sa.Name]
		switch {
		case !ok:
		case sa.Computed:
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Cannot set a computed attribute",
				Detail:   fmt.Sprintf("%q is known only after apply; it can be referenced but not set.", sa.Name),
				Subject:  a.NameRange.Ptr(),
			})
		default:
			t.setAttr(a, fast)
		}
	}
	for _, b := range content.Blocks {
		if b.Type == "dynamic" {
			diags = append(diags, t.addDynamic(b, fast)...)
			continue
		}
		diags = append(diags, t.addBlock(b.Type, b.Body, b.DefRange, fast)...)
	}
	return t, diags
}

// setAttr records a non-computed attribute of the schema.
func (t *bodyTemplate) setAttr(a *hcl.Attribute, fast bool) {
	var trs []hcl.Traversal
	if fast {
		trs = exprVariables(a.Expr)
	} else {
		trs = a.Expr.Variables()
	}
	t.attrs[t.schema.attrIndex(a.Name)] = attrSlot{attr: a, constant: len(trs) == 0}
	t.traversals = append(t.traversals, trs...)
	t.static = t.static && len(trs) == 0
}

// addBlock decodes a nested block of the schema.
func (t *bodyTemplate) addBlock(typ string, body hcl.Body, def hcl.Range, fast bool) hcl.Diagnostics {
	i := t.schema.blockIndex(typ)
	if prev := t.blocks[i]; prev != nil {
		return hcl.Diagnostics{duplicateDiag(typ+" block", def, prev.def)}
	}
	c, diags := decodeTemplate(body, t.schema.Blocks[i].Block, def, fast)
	t.blocks[i] = c
	t.static = t.static && c.static
	return diags
}

// declarations is the outcome of phase one.
type declarations struct {
	settingsBlocks hcl.Blocks
	// settingsOverrides are the override files' rdmaform blocks.
	settingsOverrides hcl.Blocks
	variables         map[string]*Variable
	locals            map[string]*hcl.Attribute
	outputs           map[string]*Output
	resources         map[addrs.Resource]*Resource
	moved             []*Moved
	removed           []*Removed
	imports           []*Import
	checks            []*Check
	agents            map[string]*agentBlock
}

func decodeFiles(files []*hcl.File) (*declarations, hcl.Diagnostics) {
	d := &declarations{
		variables: map[string]*Variable{},
		locals:    map[string]*hcl.Attribute{},
		outputs:   map[string]*Output{},
		resources: map[addrs.Resource]*Resource{},
		agents:    map[string]*agentBlock{},
	}
	var diags hcl.Diagnostics
	contents := make([]*hcl.BodyContent, len(files))
	contentDiags := make([]hcl.Diagnostics, len(files))
	jobs := make([]func(), len(files))
	for i, f := range files {
		jobs[i] = func() { contents[i], contentDiags[i] = f.Body.Content(rootSchema) }
	}
	runConcurrently(jobs)
	for _, cd := range contentDiags {
		for _, d := range cd {
			withTerraformHint(d)
		}
		diags = append(diags, cd...)
	}
	var overrides []*hcl.BodyContent
	base := contents[:0:0]
	for i, f := range files {
		if contents[i] == nil {
			continue
		}
		if isOverrideFile(fileName(f)) {
			overrides = append(overrides, contents[i])
		} else {
			base = append(base, contents[i])
		}
	}
	var overrideLocals []*hcl.Attribute
	if len(overrides) > 0 {
		var od hcl.Diagnostics
		overrideLocals, d.settingsOverrides, od = applyOverrides(base, overrides)
		diags = append(diags, od...)
		contents = base
	}
	decoded := decodeResources(contents)
	d.resources = make(map[addrs.Resource]*Resource, len(decoded))
	for _, content := range contents {
		for _, b := range content.Blocks {
			if len(b.Labels) == 1 && !addrs.ValidName(b.Labels[0]) {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Invalid name",
					Detail:   fmt.Sprintf("%q is not a valid name: use letters, digits, underscores and dashes, starting with a letter or underscore.", b.Labels[0]),
					Subject:  b.LabelRanges[0].Ptr(),
				})
				continue
			}
			switch b.Type {
			case "rdmaform":
				d.settingsBlocks = append(d.settingsBlocks, b)
			case "variable":
				diags = append(diags, d.addVariable(b)...)
			case "locals":
				attrs, ad := b.Body.JustAttributes()
				diags = append(diags, ad...)
				for name, a := range attrs {
					if prev, dup := d.locals[name]; dup {
						diags = append(diags, duplicateDiag(fmt.Sprintf("local value %q", name), a.NameRange, prev.NameRange))
						continue
					}
					d.locals[name] = a
				}
			case "output":
				diags = append(diags, d.addOutput(b)...)
			case "check":
				c, cd := decodeCheck(b)
				diags = append(diags, cd...)
				if i := slices.IndexFunc(d.checks, func(o *Check) bool { return o.Name == c.Name }); i >= 0 {
					diags = append(diags, duplicateDiag(fmt.Sprintf("check %q", c.Name), b.DefRange, d.checks[i].DeclRange))
					continue
				}
				d.checks = append(d.checks, c)
			case "removed":
				r, rd := decodeRemoved(b)
				diags = append(diags, rd...)
				if r != nil {
					d.removed = append(d.removed, r)
				}
			case "import":
				im, id := decodeImport(b)
				diags = append(diags, id...)
				if im != nil {
					d.imports = append(d.imports, im)
				}
			case "agent":
				diags = append(diags, d.addAgent(b)...)
			case "moved":
				m, md := decodeMoved(b)
				diags = append(diags, md...)
				if m != nil {
					d.moved = append(d.moved, m)
				}
			default:
				diags = append(diags, d.addResource(b, decoded[b])...)
			}
		}
	}
	diags = append(diags, d.overrideLocals(overrideLocals)...)
	return d, diags
}

// decodedResource is a resource block decoded on its own, before it is
// known whether its name is a duplicate.
type decodedResource struct {
	r     *Resource
	diags hcl.Diagnostics
}

// decodeResources decodes every well-named resource block concurrently,
// in batches of consecutive blocks.
func decodeResources(contents []*hcl.BodyContent) map[*hcl.Block]decodedResource {
	var blocks []*hcl.Block
	for _, content := range contents {
		for _, b := range content.Blocks {
			if schemas[addrs.Kind(b.Type)] != nil && len(b.Labels) == 1 && addrs.ValidName(b.Labels[0]) {
				blocks = append(blocks, b)
			}
		}
	}
	out := make([]decodedResource, len(blocks))
	const batch = 64
	var jobs []func()
	for start := 0; start < len(blocks); start += batch {
		end := min(start+batch, len(blocks))
		jobs = append(jobs, func() {
			for i := start; i < end; i++ {
				out[i].r, out[i].diags = decodeResource(blocks[i])
			}
		})
	}
	runConcurrently(jobs)
	m := make(map[*hcl.Block]decodedResource, len(blocks))
	for i, b := range blocks {
		m[b] = out[i]
	}
	return m
}

func (d *declarations) addVariable(b *hcl.Block) hcl.Diagnostics {
	name := b.Labels[0]
	if prev, dup := d.variables[name]; dup {
		return hcl.Diagnostics{duplicateDiag(fmt.Sprintf("variable %q", name), b.DefRange, prev.DeclRange)}
	}
	content, diags := b.Body.Content(variableSchema)
	v := &Variable{Name: name, Type: cty.DynamicPseudoType, DeclRange: b.DefRange, untyped: true}
	if a, ok := content.Attributes["type"]; ok {
		v.untyped = false
		ty, defaults, td := typeexpr.TypeConstraintWithDefaults(a.Expr)
		diags = append(diags, td...)
		if !td.HasErrors() {
			v.Type, v.defaults = ty, defaults
		}
	}
	if a, ok := content.Attributes["nullable"]; ok {
		n, nd := literal(a, cty.Bool)
		diags = append(diags, nd...)
		v.notNullable = !n.IsNull() && n.False()
	}
	if a, ok := content.Attributes["description"]; ok {
		s, sd := literalString(a)
		diags = append(diags, sd...)
		v.Description = s
	}
	if a, ok := content.Attributes["sensitive"]; ok {
		s, sd := literal(a, cty.Bool)
		diags = append(diags, sd...)
		v.Sensitive = !s.IsNull() && s.True()
	}
	if a, ok := content.Attributes["default"]; ok {
		val, vd := a.Expr.Value(nil)
		diags = append(diags, vd...)
		if !vd.HasErrors() {
			if v.defaults != nil {
				val = v.defaults.Apply(val)
			}
			if val.IsNull() && v.notNullable {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid default value for variable",
					Detail: "A null default value is not valid when nullable = false.", Subject: a.Expr.Range().Ptr()})
			}
			cv, err := convert.Convert(val, v.Type)
			if err != nil {
				// Where in the value: attribute "a": a number is required.
				msg := conversionWords(val.Type(), v.Type, err)
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Invalid default value for variable",
					Detail:   fmt.Sprintf("This default value is not compatible with the variable's type constraint: %s.", msg),
					Subject:  a.Expr.Range().Ptr(),
				})
				v.Default = cty.UnknownVal(v.Type) // reported; no second error
			} else {
				v.Default = cv
			}
		}
	}
	for _, vb := range content.Blocks {
		vc, vd := vb.Body.Content(validationSchema)
		diags = append(diags, vd...)
		if vd.HasErrors() {
			continue
		}
		cond := vc.Attributes["condition"]
		invalid := false
		for _, tr := range append(cond.Expr.Variables(), vc.Attributes["error_message"].Expr.Variables()...) {
			switch tr.RootName() {
			case "var", "local", "rdmaform", "path":
				continue // this variable, others and locals, as Terraform 1.9 allows
			}
			invalid = true
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid reference in variable validation",
				Detail:   fmt.Sprintf("A validation of variable %q can refer to variables and locals (var.%s, var.other, local.name), not %s.", name, name, tr.RootName()),
				Subject:  tr.SourceRange().Ptr(),
			})
		}
		if invalid {
			continue // reported; evaluating it would only add errors
		}
		v.validations = append(v.validations, &variableValidation{
			Condition: cond.Expr, ErrorMessage: vc.Attributes["error_message"].Expr, DeclRange: vb.DefRange,
		})
	}
	d.variables[name] = v
	return diags
}

func (d *declarations) addOutput(b *hcl.Block) hcl.Diagnostics {
	name := b.Labels[0]
	if prev, dup := d.outputs[name]; dup {
		return hcl.Diagnostics{duplicateDiag(fmt.Sprintf("output %q", name), b.DefRange, prev.DeclRange)}
	}
	content, diags := b.Body.Content(outputSchema)
	o := &Output{Name: name, DeclRange: b.DefRange, Value: cty.DynamicVal}
	if a, ok := content.Attributes["value"]; ok {
		o.expr = a.Expr
	}
	if a, ok := content.Attributes["description"]; ok {
		s, sd := literalString(a)
		diags = append(diags, sd...)
		o.Description = s
	}
	if a, ok := content.Attributes["sensitive"]; ok {
		s, sd := literal(a, cty.Bool)
		diags = append(diags, sd...)
		o.Sensitive = !s.IsNull() && s.True()
	}
	if a, ok := content.Attributes["depends_on"]; ok {
		trs, d := dependsOnTraversals(a)
		diags = append(diags, d...)
		o.dependsOn = trs
	}
	for _, cb := range content.Blocks {
		c, cd := decodeCondition(cb)
		diags = append(diags, cd...)
		if c != nil {
			o.Preconditions = append(o.Preconditions, c)
		}
	}
	d.outputs[name] = o
	return diags
}

// dependsOnTraversals reads a depends_on list: static references, checked
// against the declarations when the graph is built.
func dependsOnTraversals(a *hcl.Attribute) ([]hcl.Traversal, hcl.Diagnostics) {
	exprs, diags := hcl.ExprList(a.Expr)
	var trs []hcl.Traversal
	for _, e := range exprs {
		tr, td := hcl.AbsTraversalForExpr(e)
		diags = append(diags, td...)
		if !td.HasErrors() {
			trs = append(trs, tr)
		}
	}
	return trs, diags
}

// addResource declares the resource of block b, decoded already.
func (d *declarations) addResource(b *hcl.Block, dec decodedResource) hcl.Diagnostics {
	if dec.r == nil {
		dec.r, dec.diags = decodeResource(b)
	}
	addr := dec.r.Addr
	if prev, dup := d.resources[addr]; dup {
		return hcl.Diagnostics{duplicateDiag(fmt.Sprintf("%s %q", addr.Kind, addr.Name), b.DefRange, prev.DeclRange)}
	}
	d.resources[addr] = dec.r
	return dec.diags
}

// decodeResource decodes a protection_domain, listener or endpoint block.
// It touches no shared state.
func decodeResource(b *hcl.Block) (*Resource, hcl.Diagnostics) {
	addr := addrs.Resource{Kind: addrs.Kind(b.Type), Name: b.Labels[0]}
	meta, rest, diags := splitMeta(b.Body)
	r := &Resource{Addr: addr, DeclRange: b.DefRange, key: addr.String()}
	if a, ok := meta.Attributes["count"]; ok {
		r.Count = a.Expr
	}
	if a, ok := meta.Attributes["for_each"]; ok {
		r.ForEach = a.Expr
	}
	if r.Count != nil && r.ForEach != nil {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid combination of count and for_each",
			Detail:   "The count and for_each meta-arguments are mutually exclusive; only one may be used on a block.",
			Subject:  meta.Attributes["for_each"].NameRange.Ptr(),
		})
		r.ForEach = nil
	}
	if a, ok := meta.Attributes["depends_on"]; ok {
		trs, d := dependsOnTraversals(a)
		diags = append(diags, d...)
		r.dependsOn = trs
	}
	if a, ok := meta.Attributes["agent"]; ok {
		ref, d := parseAgentRef(a.Expr)
		diags = append(diags, d...)
		r.agent = ref
	}
	for i, lb := range meta.Blocks {
		if i > 0 {
			// As Terraform's: a second block would silently override the
			// first (prevent_destroy = false after true).
			diags = append(diags, duplicateDiag("lifecycle block", lb.DefRange, meta.Blocks[0].DefRange))
			continue
		}
		diags = append(diags, r.decodeLifecycle(lb)...)
	}
	body, bd := decodeBodyTemplate(rest, schemas[addr.Kind], b.DefRange)
	diags = append(diags, bd...)
	r.body = body
	return r, diags
}

func (r *Resource) decodeLifecycle(b *hcl.Block) hcl.Diagnostics {
	content, diags := b.Body.Content(lifecycleSchema)
	for _, cb := range content.Blocks {
		c, d := decodeCondition(cb)
		diags = append(diags, d...)
		switch {
		case c == nil:
		case cb.Type == "precondition":
			r.Lifecycle.Preconditions = append(r.Lifecycle.Preconditions, c)
		default:
			r.Lifecycle.Postconditions = append(r.Lifecycle.Postconditions, c)
		}
	}
	for name, dst := range map[string]*bool{"prevent_destroy": &r.Lifecycle.PreventDestroy, "create_before_destroy": &r.Lifecycle.CreateBeforeDestroy} {
		if a, ok := content.Attributes[name]; ok {
			v, d := literal(a, cty.Bool)
			diags = append(diags, d...)
			*dst = !v.IsNull() && v.True()
		}
	}
	if a, ok := content.Attributes["replace_triggered_by"]; ok {
		ts, d := decodeTriggers(a)
		diags = append(diags, d...)
		r.Lifecycle.ReplaceTriggeredBy = ts
	}
	a, ok := content.Attributes["ignore_changes"]
	if !ok {
		return diags
	}
	if kw := hcl.ExprAsKeyword(a.Expr); kw == "all" {
		r.Lifecycle.IgnoreAllChanges = true
		return diags
	}
	exprs, d := hcl.ExprList(a.Expr)
	diags = append(diags, d...)
	for _, e := range exprs {
		tr, d := hcl.RelTraversalForExpr(e)
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		path, d := schemaPath(schemas[r.Addr.Kind], tr)
		diags = append(diags, d...)
		if path != nil {
			r.Lifecycle.IgnoreChanges = append(r.Lifecycle.IgnoreChanges, path)
		}
	}
	return diags
}

// schemaPath turns a relative traversal such as qp.max_send_wr into a
// path, checking every step against the schema.
func schemaPath(b *Block, tr hcl.Traversal) (cty.Path, hcl.Diagnostics) {
	var path cty.Path
	inBlock := false // the last step named a nested block
	for _, step := range tr {
		var name string
		switch s := step.(type) {
		case hcl.TraverseRoot:
			name = s.Name
		case hcl.TraverseAttr:
			name = s.Name
		case hcl.TraverseIndex:
			// Terraform's spellings: connect["timeout"] for connect.timeout,
			// and qp[0] for the one qp block (a list in providers' schemas).
			if k := s.Key; k.IsKnown() && !k.IsNull() && k.Type() == cty.String {
				name = k.AsString()
				break
			}
			if k := s.Key; inBlock && k.IsKnown() && !k.IsNull() && k.Type() == cty.Number && k.RawEquals(cty.Zero) {
				inBlock = false
				continue
			}
			return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid ignore_changes entry",
				Detail: "An entry is an attribute name or a path of names, such as qp.max_send_wr (or qp[0].max_send_wr, connect[\"timeout\"]).", Subject: step.SourceRange().Ptr()}}
		default:
			return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid ignore_changes entry",
				Detail: "An entry is an attribute name or a path of names, such as qp.max_send_wr.", Subject: step.SourceRange().Ptr()}}
		}
		if b == nil {
			return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid ignore_changes entry",
				Detail: fmt.Sprintf("%q is not a block, so it has no attribute %q.", path[len(path)-1].(cty.GetAttrStep).Name, name), Subject: step.SourceRange().Ptr()}}
		}
		path = append(path, cty.GetAttrStep{Name: name})
		inBlock = false
		if b.Attribute(name) != nil {
			b = nil
			continue
		}
		if nb := b.NestedBlock(name); nb != nil {
			b, inBlock = nb.Block, true
			continue
		}
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Unsupported attribute",
			Detail: fmt.Sprintf("There is no attribute named %q here.%s", name, DidYouMean(name, b.names())), Subject: step.SourceRange().Ptr()}}
	}
	return path, nil
}

// terraformHints say what Terraform's top-level blocks are in rdmaform.
var terraformHints = map[string]string{
	"terraform": "rdmaform's settings block is rdmaform { required_version, backend, agent }.",
	"resource":  "rdmaform's blocks are named by their kind alone: listener \"NAME\", endpoint \"NAME\", protection_domain \"NAME\".",
	"data":      "rdmaform has no data sources: the agent's live objects are read by plan's refresh.",
	"provider":  "rdmaform has no providers: it acts through agents. An agent \"NAME\" block names a host's agent and an object chooses it with agent = agent.NAME; without one, the local agent (the rdmaform { agent { socket } } setting) serves it.",
	"module":    "rdmaform has no modules: every file of the directory is one configuration.",
}

// withTerraformHint adds, to HCL's error for a top-level block rdmaform
// does not have, what Terraform's block of that type is here.
func withTerraformHint(d *hcl.Diagnostic) {
	if d.Summary != "Unsupported block type" {
		return
	}
	for typ, hint := range terraformHints {
		if strings.Contains(d.Detail, fmt.Sprintf("Blocks of type %q are not expected here.", typ)) {
			d.Detail += " " + hint
			return
		}
	}
}
