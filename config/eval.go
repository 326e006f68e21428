package config

import (
	"fmt"
	"math/big"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"
)

// DefaultMaxInstances bounds count and the size of for_each for one block
// unless Loader.MaxInstances says otherwise.
const DefaultMaxInstances = 100_000

// Load reads the configuration in dir and evaluates it with the given
// variable values. See the package documentation.
func Load(dir string, vars VarInputs) (*Config, hcl.Diagnostics) {
	return NewLoader().Load(dir, vars)
}

// Load is the Loader form of the package-level Load. While it runs, the
// garbage collector's target is raised (see loadGCPercent).
func (l *Loader) Load(dir string, vars VarInputs) (*Config, hcl.Diagnostics) {
	defer raiseGCPercent()()
	files, diags := l.parseDir(dir)
	cfg, d := l.loadFiles(dir, files, vars)
	return cfg, dedupe(withoutConsequences(diags, d))
}

// withoutConsequences joins the parse diagnostics and the load's; when a
// file did not parse, the load's are left out: the blocks of that file
// are missing, so what refers to them would be reported as undeclared
// (Terraform, too, reports only the files' own errors then).
func withoutConsequences(parse, load hcl.Diagnostics) hcl.Diagnostics {
	if parse.HasErrors() {
		return parse
	}
	return append(parse, load...)
}

// LoadSources loads a configuration from memory: name → content, where a
// name ending in .json is read as HCL's JSON syntax. No variable files are
// read; vars.Args may still name -var-file files.
func (l *Loader) LoadSources(sources map[string][]byte, vars VarInputs) (*Config, hcl.Diagnostics) {
	names := mapKeys(sources)
	srcs := make([][]byte, len(names))
	for i, n := range names {
		srcs[i] = sources[n]
	}
	var files []*hcl.File
	var diags hcl.Diagnostics
	for i, r := range parseSources(names, srcs, make([]hcl.Diagnostics, len(names))) {
		diags = append(diags, r.diags...)
		if r.file != nil {
			l.parser.AddFile(names[i], r.file)
			if !r.diags.HasErrors() {
				files = append(files, r.file)
			}
		}
	}
	cfg, d := l.loadFiles("", files, vars)
	return cfg, dedupe(withoutConsequences(diags, d))
}

// loadFiles runs both phases over parsed files; dir ("" for none) is where
// variable files are looked for.
func (l *Loader) loadFiles(dir string, files []*hcl.File, vars VarInputs) (*Config, hcl.Diagnostics) {
	decl, diags := decodeFiles(files)
	var d hcl.Diagnostics
	diags = append(diags, d...)
	settings, d := decodeSettings(decl.settingsBlocks)
	diags = append(diags, d...)
	settings, d = overrideSettings(settings, decl.settingsOverrides)
	diags = append(diags, d...)
	if l.CoreVersion != "" {
		diags = append(diags, checkCoreVersion(settings, l.CoreVersion)...)
	}
	d, unreadable := l.assignVariables(dir, decl.variables, vars)
	diags = append(diags, d...)

	planTime := l.PlanTimestamp
	if planTime.IsZero() {
		planTime = time.Now()
	}
	planTime = planTime.UTC().Truncate(time.Second)
	funcs := l.functions(planTime)
	e := &evaluator{
		l:         l,
		dir:       dir,
		agentVals: map[string]cty.Value{},
		decl:      decl,
		refs:      map[string][]*reference{},
		locals:    map[string]cty.Value{},
		res:       map[addrs.Resource]cty.Value{},
		funcs:     funcs,
		cfg: &Config{
			Workspace: l.workspace(),
			cwd:       l.cwd(),
			Settings:  settings,
			Variables: decl.variables,
			Locals:    map[string]cty.Value{},
			Resources: decl.resources,
			Instances: map[addrs.Instance]*Instance{},
			Outputs:   decl.outputs,
			Moved:     decl.moved,
			Checks:    decl.checks,
			Removed:   decl.removed,
			Imports:   decl.imports,
			Agents:    map[string]*Agent{},

			agentBlocks: decl.agents,
		},
	}
	e.cfg.PlanTimestamp, e.cfg.funcs = planTime, funcs
	if unreadable {
		// As Terraform, which stops at a variable file it cannot read:
		// nothing is evaluated, so that nothing is reported of values the
		// file may have set.
		e.cfg.makeCtx = e.fullContext()
		return e.cfg, diags
	}
	diags = append(diags, e.buildGraph()...)
	// Nodes of one level depend only on nodes of lower levels, so each
	// level's nodes are evaluated concurrently. What refers to a variable
	// comes after its validations (see invalid_variables.go).
	var ordered []string
	level := map[string]int{}
	for _, comp := range e.graph.order() {
		if isCycle(comp) {
			diags = append(diags, e.cycleDiag(comp))
			continue // members stay unknown
		}
		n := comp[0]
		lv := 0
		for _, d := range n.deps {
			if l, ok := level[d]; ok {
				lv = max(lv, l+1)
			}
		}
		level[n.key] = lv
		ordered = append(ordered, n.key)
	}
	e.relevel(ordered, level, e.validationWaits())
	var levels [][]string
	for _, k := range ordered {
		lv := level[k]
		for len(levels) <= lv {
			levels = append(levels, nil)
		}
		levels[lv] = append(levels[lv], k)
	}
	lastAgentLevel := -1
	for name := range e.decl.agents {
		if lv, ok := level[agentKind+"."+name]; ok {
			lastAgentLevel = max(lastAgentLevel, lv)
		}
	}
	var evaluated hcl.Diagnostics
	for lv, keys := range levels {
		evaluated = append(evaluated, e.evalLevel(keys)...)
		if lv == lastAgentLevel && e.l.AgentsEvaluated != nil && !diags.HasErrors() && !evaluated.HasErrors() {
			e.agentsEvaluated()
		}
	}
	e.cfg.makeCtx = e.fullContext()
	evaluated = append(evaluated, e.checkChecks()...)
	if !e.l.SkipPreconditions {
		evaluated = append(evaluated, e.checkOutputPreconditions()...)
	}
	evaluated = append(evaluated, checkAgentAddresses(e.cfg)...)
	evaluated = append(evaluated, checkListenerAddresses(e.cfg)...)
	evaluated = append(evaluated, checkEndpointTargets(e.cfg)...)
	evaluated = append(evaluated, checkMoved(e.cfg)...)
	evaluated = append(evaluated, checkRemoved(e.cfg)...)
	evaluated = append(evaluated, checkImports(e.cfg, e.l)...)
	evaluated = append(evaluated, checkTriggers(e.cfg)...)
	diags = append(diags, e.withoutTainted(evaluated, e.taintedNodes())...)
	diags = append(diags, dependencies(e)...)
	diags = append(diags, triggerCycles(e.cfg)...)
	diags = append(diags, e.checkSensitiveOutputs()...)
	return e.cfg, e.redactSensitive(diags)
}

// agentsEvaluated gives Loader.AgentsEvaluated the agents, once each
// agent block is evaluated, unless one of them is unknown or in error.
func (e *evaluator) agentsEvaluated() {
	e.mu.RLock()
	defer e.mu.RUnlock()
	for _, a := range e.decl.agents {
		if a.instancesUnknown || a.badRefs {
			return
		}
	}
	agents := make(map[string]*Agent, len(e.cfg.Agents))
	for k, a := range e.cfg.Agents {
		agents[k] = a
	}
	e.l.AgentsEvaluated(agents)
}

// evalLevel evaluates independent nodes, concurrently when there are
// enough of them to be worth it.
func (e *evaluator) evalLevel(keys []string) hcl.Diagnostics {
	workers := runtime.GOMAXPROCS(0)
	if len(keys) < 64 || workers < 2 {
		var diags hcl.Diagnostics
		for _, k := range keys {
			diags = append(diags, e.evalNode(k)...)
		}
		return diags
	}
	results := make([]hcl.Diagnostics, len(keys))
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(keys) {
					return
				}
				results[i] = e.evalNode(keys[i])
			}
		}()
	}
	wg.Wait()
	var diags hcl.Diagnostics
	for _, d := range results {
		diags = append(diags, d...)
	}
	return diags
}

// evaluator holds phase two's state: the values known so far. Nodes of one
// level run concurrently: mu guards the maps they write.
type evaluator struct {
	mu     sync.RWMutex
	l      *Loader
	decl   *declarations
	graph  graph
	refs   map[string][]*reference // by node key
	locals map[string]cty.Value
	res    map[addrs.Resource]cty.Value
	funcs  map[string]function.Function
	cfg    *Config
	// dir is the configuration's directory, which relative paths of
	// agents' tls files are resolved against ("" for none).
	dir string
	// agentVals are the agent blocks' values, by name.
	agentVals map[string]cty.Value

	pdMu     sync.Mutex
	pdAgents map[addrs.Resource]cty.Value // see pdAgentValue

	ctxMu sync.Mutex
	ctxs  map[string]*hcl.EvalContext // by references, see ctx
}

func (e *evaluator) buildGraph() hcl.Diagnostics {
	var diags hcl.Diagnostics
	n := len(e.decl.variables) + len(e.decl.locals) + len(e.decl.outputs) + len(e.decl.resources)
	e.graph.nodes = make(map[string]*node, n)
	e.refs = make(map[string][]*reference, n)
	for name, v := range e.decl.variables {
		e.graph.add("var."+name, v.DeclRange, nil)
		if len(v.validations) == 0 {
			continue
		}
		// Its validations are a node of their own: they may use locals,
		// which may use the variable.
		var exprs []hcl.Expression
		for _, val := range v.validations {
			exprs = append(exprs, val.Condition, val.ErrorMessage)
		}
		refs, d := e.decl.collectRefs(exprs, "")
		diags = append(diags, d...)
		e.refs["validation."+name] = refs
		e.graph.add("validation."+name, v.DeclRange, refs)
	}
	for name, a := range e.decl.locals {
		refs, d := e.decl.collectRefs([]hcl.Expression{a.Expr}, "")
		diags = append(diags, d...)
		e.refs["local."+name] = refs
		e.graph.add("local."+name, a.NameRange, refs)
	}
	for name, o := range e.decl.outputs {
		refs, d := e.decl.collectRefs([]hcl.Expression{o.expr}, "")
		diags = append(diags, d...)
		extra, d := e.dependsOnKeys(o.dependsOn)
		diags = append(diags, d...)
		e.refs["output."+name] = refs
		e.graph.add("output."+name, o.DeclRange, refs, extra...)
	}
	for _, a := range e.decl.agents {
		refs, d := e.agentNode(a)
		diags = append(diags, d...)
		e.refs[a.key] = refs
		e.graph.add(a.key, a.declRange, refs)
	}
	// Blocks are typed concurrently, in batches, then entered in order.
	rs := make([]*Resource, 0, len(e.decl.resources))
	for _, r := range e.decl.resources {
		rs = append(rs, r)
	}
	type typed struct {
		refs  []*reference
		node  *node
		diags hcl.Diagnostics
	}
	out := make([]typed, len(rs))
	var jobs []func()
	for start := 0; start < len(rs); start += 256 {
		end := min(start+256, len(rs))
		jobs = append(jobs, func() {
			for i := start; i < end; i++ {
				out[i].refs, out[i].node, out[i].diags = e.resourceNode(rs[i])
			}
		})
	}
	runConcurrently(jobs)
	for i, r := range rs {
		diags = append(diags, out[i].diags...)
		e.refs[r.key] = out[i].refs
		e.graph.nodes[r.key] = out[i].node
	}
	return diags
}

// resourceNode types a block's references and makes its graph node. It
// only reads the declarations.
func (e *evaluator) resourceNode(r *Resource) ([]*reference, *node, hcl.Diagnostics) {
	expand := ""
	switch {
	case r.Count != nil:
		expand = "count"
	case r.ForEach != nil:
		expand = "each"
	}
	condRefs, selfRefs, diags := r.conditionTraversals()
	trs := r.body.allTraversals() // shared: append to a copy
	refs, d := e.decl.collectRefs([]hcl.Expression{r.Count, r.ForEach}, expand, append(trs[:len(trs):len(trs)], condRefs...)...)
	diags = append(diags, d...)
	if r.agent != nil {
		ar, d := e.decl.agentRefRefs(r.agent, expand)
		diags = append(diags, d...)
		refs = append(refs, ar...)
	}
	diags = append(diags, checkSelfReferences(r.Addr.Kind, selfRefs)...)
	// count and for_each cannot use the instance's own key.
	for _, meta := range []hcl.Expression{r.Count, r.ForEach} {
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
	extra, d := e.dependsOnKeys(r.dependsOn)
	diags = append(diags, d...)
	return refs, newNode(r.key, r.DeclRange, refs, extra...), diags
}

// dependsOnKeys checks a depends_on list and returns the graph keys of the
// blocks it names.
func (e *evaluator) dependsOnKeys(trs []hcl.Traversal) ([]string, hcl.Diagnostics) {
	var keys []string
	var diags hcl.Diagnostics
	for _, tr := range trs {
		ref, d := e.decl.parseRef(tr, "")
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		if ref.kind != refResource || len(tr) > 3 || (len(tr) == 3 && !isIndex(tr[2])) {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid depends_on reference",
				Detail: "depends_on lists whole blocks, such as listener.storage or endpoint.client[0]; not attributes or variables.", Subject: tr.SourceRange().Ptr()})
			continue
		}
		keys = append(keys, ref.key())
	}
	return keys, diags
}

// fullContext returns the maker of a context holding every value of the
// configuration, for Config.Eval, which makes it on first use.
func (e *evaluator) fullContext() func() *hcl.EvalContext {
	e.cfg.agentsVal = agentsValue(e.agentVals)
	variables, locals, res, funcs, b := e.decl.variables, e.locals, e.res, e.funcs, e.cfg.builtins()
	return func() *hcl.EvalContext {
		return fullContext(b, variables, locals, res, funcs)
	}
}

// builtins are the values of the names every expression has besides the
// configuration's own: rdmaform.workspace and path.*.
type builtins struct {
	workspace string
	cwd       string    // path.cwd
	agents    cty.Value // the agent blocks' values (see agentsValue); NilVal for none
}

// rdmaformValue is the rdmaform object of expressions: rdmaform.workspace.
func (b builtins) rdmaformValue() cty.Value {
	return cty.ObjectVal(map[string]cty.Value{"workspace": cty.StringVal(b.workspace)})
}

// pathNames are the attributes of path.
var pathNames = []string{"module", "root", "cwd"}

// pathValue is the path object of expressions. There are no modules:
// path.module and path.root are the configuration's directory, "." as
// Terraform gives its root module's (relative paths are read from it);
// path.cwd is the absolute directory rdmaform was started in.
func (b builtins) pathValue() cty.Value {
	cwd := cty.UnknownVal(cty.String)
	if b.cwd != "" {
		cwd = cty.StringVal(b.cwd)
	}
	return cty.ObjectVal(map[string]cty.Value{"module": cty.StringVal("."), "root": cty.StringVal("."), "cwd": cwd})
}

func fullContext(b builtins, variables map[string]*Variable, locals map[string]cty.Value, res map[addrs.Resource]cty.Value, funcs map[string]function.Function) *hcl.EvalContext {
	vars := map[string]cty.Value{}
	for name, v := range variables {
		vars[name] = v.exprValue()
	}
	roots := map[string]cty.Value{"var": cty.ObjectVal(vars), "local": cty.ObjectVal(locals), "rdmaform": b.rdmaformValue(), "path": b.pathValue()}
	kinds := map[string]map[string]cty.Value{}
	for addr, v := range res {
		if kinds[string(addr.Kind)] == nil {
			kinds[string(addr.Kind)] = map[string]cty.Value{}
		}
		kinds[string(addr.Kind)][addr.Name] = v
	}
	for _, k := range addrs.Kinds {
		roots[string(k)] = cty.ObjectVal(kinds[string(k)])
	}
	roots[agentKind] = cty.EmptyObjectVal
	if b.agents != cty.NilVal {
		roots[agentKind] = b.agents
	}
	return &hcl.EvalContext{Variables: roots, Functions: funcs}
}

func isIndex(s hcl.Traverser) bool { _, ok := s.(hcl.TraverseIndex); return ok }

// ctx is the EvalContext for an expression with these references: only
// the values they name, so that building it costs what the block uses,
// not what the configuration holds. Names already reported as invalid are
// unknown, so that evaluation adds no second error for them.
//
// Blocks with the same references (10,000 endpoints of one listener)
// share one context: the values it holds are final, since a node is
// evaluated only after everything it references.
func (e *evaluator) ctx(refs []*reference) *hcl.EvalContext {
	var kb strings.Builder
	n := 0
	for _, r := range refs {
		n += len(r.root) + len(r.name) + 3
	}
	kb.Grow(n)
	for _, r := range refs {
		kb.WriteByte(byte('0' + r.kind))
		kb.WriteString(r.root)
		kb.WriteByte('.')
		kb.WriteString(r.name)
		kb.WriteByte(0)
	}
	key := kb.String()
	e.ctxMu.Lock()
	defer e.ctxMu.Unlock()
	if c, ok := e.ctxs[key]; ok {
		return c
	}
	c := e.newCtx(refs)
	if e.ctxs == nil {
		e.ctxs = map[string]*hcl.EvalContext{}
	}
	e.ctxs[key] = c
	return c
}

func (e *evaluator) newCtx(refs []*reference) *hcl.EvalContext {
	objs := map[string]map[string]cty.Value{}
	vars := map[string]cty.Value{}
	put := func(root, name string, v cty.Value) {
		m := objs[root]
		if m == nil {
			m = map[string]cty.Value{}
			objs[root] = m
		}
		m[name] = v
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	for _, r := range refs {
		switch r.kind {
		case refVar:
			put("var", r.name, e.decl.variables[r.name].exprValue())
		case refLocal:
			v, ok := e.locals[r.name]
			if !ok {
				v = cty.DynamicVal
			}
			put("local", r.name, v)
		case refResource:
			v, ok := e.res[r.res]
			if !ok {
				v = cty.DynamicVal
			}
			put(string(r.res.Kind), r.res.Name, v)
		case refAgent:
			v, ok := e.agentVals[r.name]
			if !ok {
				v = cty.DynamicVal
			}
			put(agentKind, r.name, v)
		}
	}
	for _, r := range refs {
		if r.kind == refInvalid {
			if r.name != "" && r.root != "count" && r.root != "each" {
				put(r.root, r.name, cty.DynamicVal)
			} else {
				vars[r.root] = cty.DynamicVal
			}
		}
	}
	for root, m := range objs {
		vars[root] = cty.ObjectVal(m)
	}
	for _, r := range refs {
		switch r.kind {
		case refRdmaform:
			vars["rdmaform"] = e.cfg.builtins().rdmaformValue()
		case refPath:
			vars["path"] = e.cfg.builtins().pathValue()
		}
	}
	return &hcl.EvalContext{Variables: vars, Functions: e.funcs}
}

func (e *evaluator) evalNode(key string) hcl.Diagnostics {
	kind, name, _ := cutDot(key)
	switch kind {
	case "var":
		return nil
	case "validation":
		v := e.decl.variables[name]
		diags, failed := v.validate(e.ctx(e.refs[key]))
		if failed {
			e.invalidate(v)
		}
		return diags
	case "local":
		v, diags := e.decl.locals[name].Expr.Value(e.ctx(e.refs[key]))
		if diags.HasErrors() {
			v = cty.DynamicVal
		}
		e.mu.Lock()
		e.locals[name] = v
		e.cfg.Locals[name] = v
		e.cfg.localOrder = append(e.cfg.localOrder, localExpr{name, e.decl.locals[name].Expr})
		e.mu.Unlock()
		return diags
	case "output":
		o := e.decl.outputs[name]
		if o.expr == nil {
			return nil
		}
		v, diags := o.expr.Value(e.ctx(e.refs[key]))
		if diags.HasErrors() {
			v = cty.DynamicVal
		}
		o.Value, o.marked = unmarkSensitive(v)
		return diags
	case agentKind:
		return e.evalAgent(e.decl.agents[name])
	}
	return e.evalResource(e.decl.resources[addrs.Resource{Kind: addrs.Kind(kind), Name: name}])
}

func cutDot(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// instanceKey is one expansion of a block: its key and the count/each
// object its expressions see.
type instanceKey struct {
	key  addrs.Key
	vars map[string]cty.Value
}

func (e *evaluator) evalResource(r *Resource) hcl.Diagnostics {
	ctx := e.ctx(e.refs[r.key])
	keys, known, diags := e.expand(r, ctx)
	if diags.HasErrors() {
		return diags
	}
	if !known {
		// Validate mode with an unknown count or for_each: check the body
		// once with unknown keys; there are no instances to record.
		child := ctx.NewChild()
		child.Variables = map[string]cty.Value{
			"count": cty.ObjectVal(map[string]cty.Value{"index": cty.UnknownVal(cty.Number)}),
			"each":  cty.ObjectVal(map[string]cty.Value{"key": cty.UnknownVal(cty.String), "value": cty.DynamicVal}),
		}
		_, _, d := evalInstance(r, child, false)
		d = e.withoutUnknownDynamicForEach(d)
		// What refers to the block reads it as unknown, as Terraform's
		// validate and console do: its instances are not known either.
		e.mu.Lock()
		e.res[r.Addr] = cty.DynamicVal
		r.instancesUnknown = true
		e.mu.Unlock()
		return append(diags, d...)
	}
	for _, k := range keys {
		if d := checkInstanceName(r, k.key); d != nil {
			return append(diags, d)
		}
	}
	values := make([]cty.Value, 0, len(keys))
	insts := make([]*Instance, 0, len(keys))
	for _, k := range keys {
		ictx := ctx
		if k.vars != nil {
			ictx = ctx.NewChild()
			ictx.Variables = k.vars
		}
		v, inst, d := evalInstance(r, ictx, len(keys) > 1)
		d = e.withoutUnknownDynamicForEach(d)
		diags = append(diags, d...)
		if len(r.Lifecycle.Preconditions) > 0 && !d.HasErrors() && !e.l.SkipPreconditions {
			// Those that use values known only after apply are checked
			// by apply (Config.CheckConditions).
			deferred, d := checkConditions(withoutSelf(r.Lifecycle.Preconditions), ictx, "Resource precondition failed")
			diags = append(diags, d...)
			inst.PreconditionsAfterApply = deferred
		}
		inst.Addr = r.Addr.Instance(k.key)
		inst.Resource = r
		if r.agent != nil {
			agent, d := e.resolveAgent(r.agent, ictx)
			diags = append(diags, d...)
			inst.Agent = agent
		}
		if len(e.decl.agents) > 0 {
			diags = append(diags, e.checkPDAgent(r, inst, ictx)...)
		}
		insts = append(insts, inst)
		values = append(values, markSensitive(v, inst.Sensitive))
	}
	all := blockValue(r.Count != nil, r.ForEach != nil, keys, values)
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, inst := range insts {
		e.cfg.Instances[inst.Addr] = inst
	}
	e.res[r.Addr] = all
	return diags
}

// blockValue is what a block's name evaluates to from its instances'
// values: a tuple with count, an object by key with for_each, the one
// value otherwise.
func blockValue(counted, forEach bool, keys []instanceKey, values []cty.Value) cty.Value {
	switch {
	case counted && len(values) == 0:
		return cty.EmptyTupleVal
	case counted:
		return cty.TupleVal(values)
	case forEach:
		m := make(map[string]cty.Value, len(values))
		for i, k := range keys {
			m[string(k.key.(addrs.StringKey))] = values[i]
		}
		return cty.ObjectVal(m)
	}
	return values[0]
}

// expand evaluates count or for_each. known is false when validating and
// the value is not known yet.
func (e *evaluator) expand(r *Resource, ctx *hcl.EvalContext) ([]instanceKey, bool, hcl.Diagnostics) {
	return e.expandMeta(r.Count, r.ForEach, ctx)
}

// expandMeta is expand for a block with these count and for_each
// expressions (nil when absent).
func (e *evaluator) expandMeta(count, forEach hcl.Expression, ctx *hcl.EvalContext) ([]instanceKey, bool, hcl.Diagnostics) {
	r := struct{ Count, ForEach hcl.Expression }{count, forEach}
	switch {
	case r.Count != nil:
		v, diags := r.Count.Value(ctx)
		if diags.HasErrors() {
			return nil, false, diags
		}
		v, _ = v.UnmarkDeep() // a count from a sensitive value is allowed, as in Terraform
		bad := func(detail string) ([]instanceKey, bool, hcl.Diagnostics) {
			return nil, false, append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid count argument",
				Detail: detail, Subject: r.Count.Range().Ptr(), Expression: r.Count, EvalContext: ctx})
		}
		if !v.IsKnown() {
			if e.l.Validate || e.usesErroredVariable(r.Count) {
				return nil, false, diags
			}
			return bad("The count value depends on values that are known only after apply; count must be known when planning.")
		}
		if v.IsNull() {
			return bad("count must be a whole number, not null.")
		}
		nv, err := convert.Convert(v, cty.Number)
		if err != nil {
			return bad(fmt.Sprintf("count must be a whole number: %s.", err))
		}
		bf := nv.AsBigFloat()
		n, acc := bf.Int64()
		if acc != big.Exact || !bf.IsInt() || n < 0 || n > int64(e.l.maxInstances()) {
			k, _, ds := bad(fmt.Sprintf("count must be a whole number from 0 to %d; got %s.", e.l.maxInstances(), bf.Text('g', 10)))
			d := ds[len(ds)-1]
			sd := &sensitiveDetail{exprs: []hcl.Expression{r.Count},
				redacted: fmt.Sprintf("count must be a whole number from 0 to %d; got %s.", e.l.maxInstances(), sensitiveValue)}
			d.Extra = sd
			if sd.shows(ctx, nil) {
				d.Detail = sd.redacted
			}
			return k, false, ds
		}
		keys := make([]instanceKey, n)
		for i := range keys {
			keys[i] = instanceKey{key: addrs.IntKey(i), vars: map[string]cty.Value{
				"count": cty.ObjectVal(map[string]cty.Value{"index": cty.NumberIntVal(int64(i))}),
			}}
		}
		return keys, true, diags
	case r.ForEach != nil:
		v, diags := r.ForEach.Value(ctx)
		if diags.HasErrors() {
			return nil, false, diags
		}
		bad := func(detail string) ([]instanceKey, bool, hcl.Diagnostics) {
			return nil, false, append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid for_each argument",
				Detail: detail, Subject: r.ForEach.Range().Ptr(), Expression: r.ForEach, EvalContext: ctx})
		}
		if v.IsMarked() {
			// Terraform's rule: the keys become addresses, shown everywhere.
			return bad("Sensitive values, or values derived from sensitive values, cannot be used as for_each arguments. If used, the sensitive value could be exposed as a resource instance key.")
		}
		// Sensitive elements of a map stay sensitive in each.value. The
		// checks below read only the value itself, which is not marked,
		// so it is not unmarked deep (a copy of every element: 10,000 at
		// times).
		elems := v
		if !v.IsKnown() || (v.Type().IsSetType() && !v.IsWhollyKnown()) {
			if e.l.Validate || e.usesErroredVariable(r.ForEach) {
				return nil, false, diags
			}
			return bad("The for_each value depends on values that are known only after apply; its keys must be known when planning.")
		}
		if v.IsNull() {
			return bad("for_each must be a map or a set of strings, not null.")
		}
		ty := v.Type()
		isSet := ty.IsSetType()
		switch {
		case !isSet && !ty.IsMapType() && !ty.IsObjectType():
			return bad(fmt.Sprintf("for_each must be a map or a set of strings; got %s. Use toset() for a list of strings.", typeWords(ty)))
		case v.LengthInt() == 0:
			// No instances, whatever the element type: toset([]) is a set
			// of any type, and is how a block is switched off (as
			// Terraform 1.11 allows).
			return nil, true, diags
		case isSet && !ty.ElementType().Equals(cty.String):
			return bad(fmt.Sprintf("for_each over a set needs a set of strings; got %s.", typeWords(ty)))
		}
		if v.LengthInt() > e.l.maxInstances() {
			return bad(fmt.Sprintf("for_each has %d elements; at most %d are allowed.", v.LengthInt(), e.l.maxInstances()))
		}
		var keys []instanceKey
		for it := elems.ElementIterator(); it.Next(); {
			k, ev := it.Element()
			if isSet {
				k = ev
			}
			if k.IsNull() {
				return bad("for_each keys cannot be null.")
			}
			keys = append(keys, instanceKey{key: addrs.StringKey(k.AsString()), vars: map[string]cty.Value{
				"each": cty.ObjectVal(map[string]cty.Value{"key": k, "value": ev}),
			}})
		}
		sort.Slice(keys, func(i, j int) bool { return keys[i].key.(addrs.StringKey) < keys[j].key.(addrs.StringKey) })
		return keys, true, diags
	}
	return []instanceKey{{key: addrs.NoKey}}, true, nil
}

// usesErroredVariable reports whether expr refers to a variable whose
// value is missing or invalid, which was reported already.
func (e *evaluator) usesErroredVariable(expr hcl.Expression) bool {
	for _, tr := range expr.Variables() {
		if tr.RootName() != "var" || len(tr) < 2 {
			continue
		}
		if a, ok := tr[1].(hcl.TraverseAttr); ok {
			if v := e.decl.variables[a.Name]; v != nil && v.errored {
				return true
			}
		}
	}
	return false
}

// evalBody evaluates a template into an object of t.schema's type:
// omitted attributes take their default (or null), computed ones are
// unknown, nested blocks are objects or null. reuse says that the
// template is evaluated for several instances: a body without references
// is then built once (a qp block once per port space, which decides its
// default type); its diagnostics are reported on first use.
//
// The values are unmarked; sens gathers the paths of the attributes whose
// value was sensitive (see Instance.Sensitive).
func evalBody(t *bodyTemplate, ctx *hcl.EvalContext, reuse bool, sens *sensitivePaths) (cty.Value, hcl.Diagnostics) {
	return evalObject(t, ctx, reuse, false, cty.NilVal, sens, "")
}

// evalObject is evalBody for a top-level or nested body; isQP and ps (the
// port space) fill in a qp block's default type; at is the body's path,
// its block names joined by dots ("" for the top level).
func evalObject(t *bodyTemplate, ctx *hcl.EvalContext, reuse, isQP bool, ps cty.Value, sens *sensitivePaths, at string) (cty.Value, hcl.Diagnostics) {
	if t.built != cty.NilVal && (!isQP || t.builtPS.RawEquals(ps)) {
		return t.built, nil
	}
	n := len(sens.paths)
	vals, diags := evalBodyMapOnce(t, ctx, reuse, sens, at)
	if isQP {
		fillQPType(vals, ps)
	}
	obj := cty.ObjectVal(vals) // copies vals
	clear(vals)
	valsPool.Put(vals)
	// A body with a sensitive attribute (sensitive("x") needs no
	// reference) is not reused whole: its constant attributes still are,
	// and each use records the path.
	if reuse && t.static && len(sens.paths) == n {
		t.built, t.builtPS = obj, ps
	}
	return obj, diags
}

// valsPool holds the maps a body's values are gathered in before
// cty.ObjectVal copies them into the object.
var valsPool = sync.Pool{New: func() any { return map[string]cty.Value{} }}

// evalBodyMapOnce gathers the values of a body's attributes and nested
// blocks, in a map from valsPool.
func evalBodyMapOnce(t *bodyTemplate, ctx *hcl.EvalContext, reuse bool, sens *sensitivePaths, at string) (map[string]cty.Value, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	vals := valsPool.Get().(map[string]cty.Value)
	for i, a := range t.schema.Attributes {
		if a.Computed {
			vals[a.Name] = cty.UnknownVal(a.Type)
			continue
		}
		slot := &t.attrs[i]
		attr, ok := slot.attr, slot.attr != nil
		v := slot.val
		if slot.sensitive {
			sens.add(at, a.Name)
		}
		if ok && v == cty.NilVal {
			raw, d := attr.Expr.Value(ctx)
			diags = append(diags, d...)
			if d.HasErrors() {
				raw = cty.UnknownVal(a.Type)
			}
			cv, err := convert.Convert(raw, a.Type)
			if err != nil {
				diags = append(diags, &hcl.Diagnostic{
					Severity:    hcl.DiagError,
					Summary:     "Incorrect attribute value type",
					Detail:      fmt.Sprintf("Inappropriate value for attribute %q: %s.", a.Name, err),
					Subject:     attr.Expr.Range().Ptr(),
					Expression:  attr.Expr,
					EvalContext: ctx,
				})
				cv = cty.UnknownVal(a.Type)
			}
			sensitive := false
			if cv.IsMarked() || !cv.Type().IsPrimitiveType() && cv.ContainsMarked() {
				// The value leaves unmarked; its path is recorded
				// (and marked again for the expressions that reference
				// this block: markSensitive).
				var marks cty.ValueMarks
				cv, marks = cv.UnmarkDeep()
				if marks.Has(sensitiveMark) {
					sensitive = true
					sens.add(at, a.Name)
				}
			}
			v = cv
			if slot.constant {
				slot.val, slot.sensitive = v, sensitive
			}
		}
		if v == cty.NilVal || v.IsNull() {
			if a.Required && ok {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Missing required argument",
					Detail: fmt.Sprintf("The argument %q is required, but its value is null.", a.Name), Subject: attr.Expr.Range().Ptr()})
			}
			if a.Default != cty.NilVal {
				v = a.Default
			} else {
				v = cty.NullVal(a.Type)
			}
		}
		vals[a.Name] = v
	}
	for i, nb := range t.schema.Blocks {
		c := t.blocks[i]
		if c == nil && !nb.Always {
			vals[nb.Name] = cty.NullVal(nb.Block.ImpliedType())
			continue
		}
		if c == nil {
			c = t.child(nb.Name)
		}
		sub := nb.Name
		if at != "" { // not in the schema today: nested blocks are one level deep
			sub = at + "." + nb.Name
		}
		cctx := ctx
		if c.dynamic != nil {
			dctx, d := c.dynamicContext(ctx, nb.Name)
			diags = append(diags, d...)
			switch {
			case d.HasErrors():
				vals[nb.Name] = cty.UnknownVal(nb.Block.ImpliedType())
				continue
			case dctx == nil && !nb.Always:
				vals[nb.Name] = cty.NullVal(nb.Block.ImpliedType())
				continue
			case dctx == nil:
				c = t.emptyChild(i)
			default:
				cctx = dctx
			}
		}
		v, d := evalObject(c, cctx, reuse, nb.Name == "qp", vals["port_space"], sens, sub)
		diags = append(diags, d...)
		vals[nb.Name] = v
	}
	return vals, diags
}

// evalInstance evaluates one instance and decodes and checks it.
func evalInstance(r *Resource, ctx *hcl.EvalContext, reuse bool) (cty.Value, *Instance, hcl.Diagnostics) {
	var sens sensitivePaths
	v, diags := evalBody(r.body, ctx, reuse, &sens)
	inst := &Instance{Value: v, Sensitive: sens.paths}
	diags = append(diags, decodeInstance(r.Addr.Kind, r.body, inst, ctx)...)
	return v, inst, diags
}

// fillQPType gives a qp block without a type the port space's natural
// one: "rc" for tcp and ib, "ud" for udp and ipoib.
func fillQPType(qp map[string]cty.Value, ps cty.Value) {
	if !qp["type"].IsNull() {
		return
	}
	if !ps.IsKnown() {
		qp["type"] = cty.UnknownVal(cty.String)
		return
	}
	qp["type"] = cty.StringVal(string(NaturalQPType(PortSpace(ps.AsString()))))
}

// foldAfter is how many instances of a block report one problem at the
// same place, each with its own values, before the rest fold into the
// first: a port out of range in 2,000 instances is one error, not 2,000.
const foldAfter = 3

// foldInstances folds diagnostics with the same severity, summary and
// source range (the same problem in many instances of a block, their
// details differing by value) into the first, which says how many more
// there are, once there are more than foldAfter.
func foldInstances(diags hcl.Diagnostics) hcl.Diagnostics {
	type k struct {
		sev     hcl.DiagnosticSeverity
		summary string
		subject hcl.Range
	}
	count := map[k]int{}
	for _, d := range diags {
		if d.Subject != nil {
			count[k{d.Severity, d.Summary, *d.Subject}]++
		}
	}
	out := diags[:0:0]
	kept := map[k]bool{}
	for _, d := range diags {
		if d.Subject == nil {
			out = append(out, d)
			continue
		}
		key := k{d.Severity, d.Summary, *d.Subject}
		switch n := count[key]; {
		case n <= foldAfter:
			out = append(out, d)
		case !kept[key]:
			kept[key] = true
			c := *d
			c.Detail = strings.TrimSpace(c.Detail + fmt.Sprintf("\n\n(The same problem in %d more instances of this block.)", n-1))
			out = append(out, &c)
		}
	}
	return out
}

// dedupe drops repeated diagnostics (the same problem in every instance of
// a block with count reports once) and folds the same problem repeated on
// one line (such as thousands of invalid characters) into its first
// occurrence, with a count.
func dedupe(diags hcl.Diagnostics) hcl.Diagnostics {
	type k struct {
		sev             hcl.DiagnosticSeverity
		summary, detail string
		file            string
		line            int
	}
	first := map[k]int{} // index in out
	more := map[int]int{}
	out := diags[:0:0]
	for _, d := range diags {
		key := k{sev: d.Severity, summary: d.Summary, detail: d.Detail}
		if d.Subject != nil {
			key.file, key.line = d.Subject.Filename, d.Subject.Start.Line
		}
		if i, seen := first[key]; seen {
			if d.Subject != nil && *d.Subject != *out[i].Subject {
				more[i]++
			}
			continue
		}
		first[key] = len(out)
		out = append(out, d)
	}
	for i, n := range more {
		c := *out[i]
		c.Detail = strings.TrimSpace(c.Detail + fmt.Sprintf("\n\n(%d more like this on line %d.)", n, c.Subject.Start.Line))
		out[i] = &c
	}
	return SortDiagnostics(foldInstances(out))
}
