package planner

import (
	"context"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/state"
	"github.com/zclconf/go-cty/cty"
)

// Options are plan's command-line choices and live sources.
type Options struct {
	// Refresher reads the live fabric; nil skips the refresh
	// (-refresh=false) and trusts the state.
	Refresher Refresher
	// Devices gives the devices of the agent with this key ("" for the
	// local one), which checks the device-dependent values of the objects
	// it is to hold; nil, or a nil DeviceInfo for an agent, skips the
	// checks.
	Devices func(agent string) DeviceInfo
	// Targets limits the plan to these objects and what they depend on
	// (with Destroy: what depends on them). An address without a key names
	// every instance of its block.
	Targets []addrs.Instance
	// Replace forces these objects to be replaced.
	Replace []addrs.Instance
	// Destroy plans to delete every object in the state.
	Destroy bool
	// RefreshOnly plans only to record in the state what the refresh
	// found (objects the agent no longer holds), changing no object.
	RefreshOnly bool
	// Priors is the state's objects already decoded by DecodePriors
	// (which a command may run while the configuration loads); nil: Make
	// decodes them.
	Priors *Priors
	// NoCreateBeforeDestroy: the fabric holds one object per address, so
	// a replacement must destroy first even with create_before_destroy;
	// the plan warns once per block it affects.
	NoCreateBeforeDestroy bool
	// ForImport: the import command's plan, made to adopt an object the
	// agent holds, whose names are then not clashes (see heldByAgent).
	ForImport bool
}

// prior is one state object with its decoded attributes.
type prior struct {
	obj    *state.Object
	fields *fields // the attributes, for the diff; nil: a null object
}

// value is the object as a cty value, made on first use (fields.value).
func (p *prior) value() cty.Value {
	return objectOf(config.Schema(p.obj.Addr.Kind), p.fields)
}

// null reports whether the state records the object without attributes.
func (p *prior) null() bool { return p.fields == nil }

// Make computes the plan from the configuration cfg (nil with Destroy is
// allowed) and the state prior (nil when none exists yet). Diagnostics
// accumulate; with errors the plan is not to be applied.
func Make(ctx context.Context, cfg *config.Config, st *state.State, opts Options) (*Plan, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	p := &Plan{Destroy: opts.Destroy, RefreshOnly: opts.RefreshOnly, Targets: opts.Targets, Replace: opts.Replace, Refreshed: opts.Refresher != nil,
		Created: time.Now().UTC().Truncate(time.Second)}
	if cfg != nil && !cfg.PlanTimestamp.IsZero() {
		p.Created = cfg.PlanTimestamp // plantimestamp(), for the plan's apply
	}
	if st != nil {
		p.Prior = StateID{Exists: true, Lineage: st.Lineage, Serial: st.Serial}
	}
	p.Variables = variablesOf(cfg)
	pre := opts.Priors
	if pre == nil || pre.st != st {
		pre = DecodePriors(st)
	}
	priors := maps.Clone(pre.byAddr)
	diags = append(diags, pre.diags...)
	var moved map[addrs.Instance]addrs.Instance
	if !opts.RefreshOnly { // a refresh-only plan records the drift only
		var md hcl.Diagnostics
		moved, md = p.applyMoves(cfg, priors)
		diags = append(diags, md...)
		diags = append(diags, p.applyForgets(cfg, priors)...)
	}

	failed := map[addrs.Instance]LiveObject{} // objects failed for good, as the agent holds them
	var live map[string]LiveObject
	var adoptPending map[addrs.Instance]string
	// Without a state there is nothing to refresh, but what the agent
	// holds says which creates it would refuse (see heldByAgent).
	if opts.Refresher != nil && (len(priors) > 0 || cfg != nil && len(cfg.Instances) > 0 && !opts.Destroy) {
		var err error
		live, err = opts.Refresher.Live(ctx)
		if err != nil {
			return p, append(diags, sourceless(hcl.DiagError, "Failed to refresh from the agent", err.Error()))
		}
		reads := readsAgent(opts.Refresher)
		adoptPending = p.takePending(cfg, priors, live, reads, opts)
		// In no order (the drift is sorted below): sorting 10,000 priors
		// first cost more than the loop.
		for key, pr := range priors {
			a := pr.obj.Addr
			if !reads(pr.obj.Agent) {
				continue // its agent was not asked: as the state records it
			}
			lo, ok := live[AgentHandle(pr.obj)]
			ok = ok && lo.Agent == pr.obj.Agent
			if ok && (pr.obj.Facts.CreateToken == "" || lo.Token == pr.obj.Facts.CreateToken) {
				if failedForGood(pr, lo.Status) {
					failed[a] = lo
				}
				continue
			}
			dr := Drift{Addr: a, Before: pr.value(), BeforeSensitive: stringsToPaths(pr.obj.SensitiveAttributes), Pending: pr.obj.Facts.Pending}
			if ok {
				dr.Status = lo.Status
			}
			p.Drift = append(p.Drift, dr)
			delete(priors, key)
		}
		diags = append(diags, p.refreshFacts(ctx, opts.Refresher, live, priors)...)
		sort.SliceStable(p.Drift, func(i, j int) bool { return p.Drift[i].Addr.Less(p.Drift[j].Addr) })
	} else {
		adoptPending = p.takePending(cfg, priors, nil, nil, opts)
	}
	for _, pr := range pre.byAddr {
		if d := pr.obj.Facts.Deposed; d != nil {
			addr := pr.obj.Addr
			if to, ok := moved[addr]; ok {
				addr = to
			}
			agent := pr.obj.Agent // a replacement on another agent says whose it is
			if d.Agent != "" {
				agent = d.Agent
			}
			p.Deposed = append(p.Deposed, Deposed{Addr: addr, Handle: d.AgentHandle, Token: d.CreateToken, Agent: agent})
		}
	}
	sort.Slice(p.Deposed, func(i, j int) bool { return p.Deposed[i].Addr.Less(p.Deposed[j].Addr) })
	gone := make(map[addrs.Instance]bool, len(p.Drift))
	for _, dr := range p.Drift {
		if dr.Deleted() {
			gone[dr.Addr] = true
		}
	}

	if opts.RefreshOnly {
		// Nothing to change but the state: the drift is the plan (deposed
		// objects are destroyed only by a normal plan).
		p.Deposed = nil
		if len(opts.Targets) > 0 {
			p.applyTargets(opts.Targets)
		} else if cfg != nil {
			p.OutputChanges = refreshedOutputs(cfg, st, priors)
		}
		return p, diags
	}
	if opts.Destroy {
		for _, pr := range priors {
			var inst *config.Instance
			if cfg != nil {
				inst = cfg.Instances[pr.obj.Addr]
			}
			p.Changes = append(p.Changes, deleteChange(pr, inst, ReasonDestroyPlan))
		}
	} else if cfg != nil {
		diags = append(diags, p.diffConfig(cfg, priors, live, gone, failed, adoptPending, opts)...)
		if !opts.ForImport {
			diags = append(diags, heldByAgent(p, cfg, st, live)...)
		}
		p.replaceCutOffEndpoints()
	}
	p.sortChanges()
	for _, m := range p.Moves {
		if c := p.Change(m.To); c != nil {
			c.PrevAddr = m.From
		}
	}
	if len(opts.Targets) > 0 {
		cutOff := p.listenerReplacements()
		p.applyTargets(opts.Targets)
		diags = append(diags, p.movesOutsideTargets()...)
		diags = append(diags, p.cutOffOutsideTargets(cutOff)...)
	}
	if opts.NoCreateBeforeDestroy {
		diags = append(diags, destroyFirst(p)...)
	} else {
		propagateCreateBeforeDestroy(p)
		diags = append(diags, destroyFirstWhereBound(p)...)
	}
	if opts.Destroy && st != nil && len(opts.Targets) == 0 {
		for _, n := range st.OutputNames() {
			so := st.Outputs[n]
			p.OutputChanges = append(p.OutputChanges, OutputChange{Name: n, Action: Delete, Before: decodeOutput(so), After: cty.NullVal(cty.DynamicPseudoType), Sensitive: so.Sensitive})
		}
	}
	if cfg != nil && !opts.Destroy && len(cfg.Checks) > 0 {
		diags = append(diags, cfg.ChecksWith(func(a addrs.Instance) (cty.Value, bool) {
			if c := p.Change(a); c != nil && c.Action != Delete {
				return c.AfterValue(), true
			}
			return cty.NilVal, false
		})...)
	}
	if cfg != nil && !opts.Destroy {
		diags = append(diags, p.checkUnchangedPostconditions(cfg)...)
		diags = append(diags, endpointsOverMaxConnections(cfg, p)...)
	}
	if live != nil {
		diags = append(diags, connectionsOverNewLimit(p, live, pre)...)
		diags = append(diags, deviceBeingRemoved(live)...)
	}
	if cfg != nil {
		diags = append(diags, checkPreventDestroy(cfg, p)...)
		diags = append(diags, agentsNotConfigured(cfg, p)...)
		if !opts.Destroy {
			p.OutputChanges = outputChanges(cfg, st, p)
			if len(opts.Targets) > 0 {
				p.OutputChanges = targetedOutputs(cfg, st, p)
			}
		}
		if opts.Devices != nil && !opts.Destroy {
			diags = append(diags, checkDevices(ctx, cfg, p, opts.Devices)...)
		}
		if opts.Refresher != nil && !opts.Destroy {
			diags = append(diags, checkHeldPorts(ctx, cfg, p, opts.Refresher, pre)...)
		}
	}
	var known addresses
	if len(opts.Replace)+len(opts.Targets) > 0 {
		known = knownAddresses(cfg, pre)
	}
	for _, r := range opts.Replace {
		if c := p.Change(r); c == nil || !c.Action.IsReplace() {
			inConfig, inState := cfg != nil && cfg.Instances[r] != nil, pre.byAddr[r.String()] != nil
			var detail string
			switch insts := known.instancesOf(r.Resource); {
			case r.Key == nil && len(insts) > 0 && insts[0].Key != nil:
				detail = fmt.Sprintf("-replace=%s names a block with instances (%s): -replace takes one instance, such as -replace='%s'.", r, strings.Join(addrStrings(insts), ", "), insts[0])
			case inConfig && inState && c == nil && len(opts.Targets) > 0:
				detail = fmt.Sprintf("-replace=%s is outside what -target selects, so it is not replaced: add -target=%s to replace it.", r, r)
			case inConfig && !inState:
				detail = fmt.Sprintf("-replace=%s: the state holds no object at this address yet (the plan creates it), so nothing is replaced.", r)
			case inState && !inConfig:
				detail = fmt.Sprintf("-replace=%s: the configuration no longer declares this object (the plan destroys it), so nothing is replaced.", r)
			default:
				detail = fmt.Sprintf("-replace=%s: there is no object at this address in both the state and the configuration, so nothing is replaced.", r) + known.didYouMean(r)
			}
			diags = append(diags, sourceless(hcl.DiagWarning, "Replace target not found", detail))
		}
	}
	for _, t := range opts.Targets {
		if !known.has(t) {
			diags = append(diags, sourceless(hcl.DiagWarning, "Target not found",
				fmt.Sprintf("-target=%s matches no object in the configuration or the state, so it selects nothing.%s", t, known.didYouMean(t))))
		}
	}
	if len(opts.Targets) > 0 {
		diags = append(diags, sourceless(hcl.DiagWarning, "Resource targeting is in effect",
			"You are creating a plan with -target, which may not represent all of the changes requested by the current configuration.\n\nUse -target only in exceptional situations, such as recovering from errors or mistakes."))
	}
	return p, diags
}

// Priors are a state's objects decoded for the diff.
type Priors struct {
	st     *state.State
	byAddr map[string]*prior
	diags  hcl.Diagnostics
}

// Diagnostics are the problems decoding found: objects of a kind or a
// schema version this rdmaform does not know, attributes that do not
// match their schema.
func (p *Priors) Diagnostics() hcl.Diagnostics { return p.diags }

// DecodePriors decodes st's objects (nil: no state) for Make, which
// otherwise does it itself. For a plan with nothing to do this is much of
// the work, and it needs only the state: a command can do it while the
// configuration loads.
func DecodePriors(st *state.State) *Priors {
	byAddr, diags := decodePriors(st)
	return &Priors{st: st, byAddr: byAddr, diags: diags}
}

// decodePriors decodes the state's objects, spread over the CPUs.
func decodePriors(st *state.State) (map[string]*prior, hcl.Diagnostics) {
	if st == nil {
		return map[string]*prior{}, nil
	}
	objs := make([]*state.Object, 0, len(st.Objects))
	for _, o := range st.Objects {
		objs = append(objs, o)
	}
	decoded := make([]*prior, len(objs))
	problems := make([]*hcl.Diagnostic, len(objs))
	workers := min(runtime.GOMAXPROCS(0), max(1, len(objs)/256))
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			cache := nestedCache{}
			for i := w; i < len(objs); i += workers {
				decoded[i], problems[i] = decodePrior(objs[i], cache)
			}
		}(w)
	}
	wg.Wait()
	var diags hcl.Diagnostics
	out := make(map[string]*prior, len(objs))
	for i, o := range objs {
		if problems[i] != nil {
			diags = append(diags, problems[i])
			continue
		}
		out[o.Addr.String()] = decoded[i]
	}
	sort.Slice(diags, func(i, j int) bool { return diags[i].Detail < diags[j].Detail })
	return out, diags
}

func decodePrior(o *state.Object, cache nestedCache) (*prior, *hcl.Diagnostic) {
	schema := config.Schema(o.Addr.Kind)
	if schema == nil {
		return nil, sourceless(hcl.DiagError, "Unknown object kind in the state",
			fmt.Sprintf("The state holds %s, of kind %q, which this version of rdmaform does not know.", o.Addr, o.Addr.Kind))
	}
	if o.SchemaVersion > config.SchemaVersion {
		return nil, sourceless(hcl.DiagError, "Object from a newer rdmaform in the state",
			fmt.Sprintf("The state holds %s with schema_version %d, written by a later rdmaform than this one, which knows schema version %d: use that rdmaform.", o.Addr, o.SchemaVersion, config.SchemaVersion))
	}
	p := &prior{obj: o}
	if len(o.Attributes) > 0 {
		var err error
		if p.fields, err = decodeObject(schema, o.Attributes, cache); err != nil {
			return nil, sourceless(hcl.DiagError, "Invalid object in the state",
				fmt.Sprintf("The attributes of %s in the state do not match its schema: %v.", o.Addr, err))
		}
	}
	return p, nil
}

func sortedPriorAddrs(priors map[string]*prior) []addrs.Instance {
	out := make([]addrs.Instance, 0, len(priors))
	for _, pr := range priors {
		out = append(out, pr.obj.Addr)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Less(out[j]) })
	return out
}

// diffConfig adds a change for every configured instance, in dependency
// order so that each knows whether what it depends on is being created,
// and a delete for every state object no longer configured.
func (p *Plan) diffConfig(cfg *config.Config, priors map[string]*prior, live map[string]LiveObject, gone map[addrs.Instance]bool, failed map[addrs.Instance]LiveObject, adoptPending map[addrs.Instance]string, opts Options) hcl.Diagnostics {
	var diags hcl.Diagnostics
	replace := make(map[addrs.Instance]ActionReason, len(opts.Replace)+len(failed))
	for a := range failed {
		replace[a] = ReasonFailed
	}
	for _, pr := range priors {
		if pr.obj.Tainted {
			replace[pr.obj.Addr] = ReasonTainted
		}
	}
	for _, r := range opts.Replace {
		replace[r] = ReasonReplaceByRequest
	}
	byResource := InstancesByResource(cfg)
	creating := map[addrs.Resource]bool{} // blocks with an object being created or replaced
	creatingInst := map[addrs.Instance]bool{}
	imports, idiags := importTargets(cfg, priors, live, gone)
	diags = append(diags, idiags...)
	for a, h := range adoptPending {
		imports[a] = h
	}
	// An object an interrupted apply was to make and did not is not
	// "gone": its drift says it was never made, and its create is plain.
	unmade := map[addrs.Instance]bool{}
	for _, dr := range p.Drift {
		if dr.Pending && dr.Deleted() {
			unmade[dr.Addr] = true
		}
	}
	imported := map[addrs.Instance]cty.Value{} // imports' planned values, their id known
	seen := make(map[string]bool, len(cfg.Instances))
	// What is planned is kept for replace_triggered_by only: a plan of
	// 10,000 objects without triggers need not index them.
	var pl *planned
	for _, r := range cfg.Resources {
		if len(r.Lifecycle.ReplaceTriggeredBy) > 0 {
			pl = &planned{byAddr: map[addrs.Instance]*Change{}, byResource: map[addrs.Resource][]*Change{}}
			break
		}
	}
	for _, r := range resourceOrder(cfg) {
		depsCreating, pdsCreating := false, false
		for _, d := range r.DependsOn {
			depsCreating = depsCreating || creating[d]
			pdsCreating = pdsCreating || creating[d] && d.Kind == addrs.ProtectionDomain
		}
		insts := byResource[r.Addr]
		sort.Slice(insts, func(i, j int) bool { return insts[i].Addr.Less(insts[j].Addr) })
		// Attributes computed from others' attributes known only after
		// apply are known from what the state records of those, unless
		// those are created or replaced in this plan.
		if !pdsCreating { // another block made in this plan (a listener) leaves pd known
			withPriorPD(cfg, insts, priors, byResource)
		}
		withPriorValues(cfg, insts, priors, creatingInst, imported, depsCreating)
		if len(r.Lifecycle.ReplaceTriggeredBy) > 0 {
			diags = append(diags, pl.triggered(insts, priors, replace)...)
		}
		changes := diffInstances(insts, priors, depsCreating, replace, gone)
		for i, c := range changes {
			if pl != nil {
				pl.add(c)
			}
			seen[insts[i].Addr.String()] = true
			switch {
			case c.Reason == ReasonFailed:
				c.LiveStatus, c.LiveError = failed[c.Addr].Status, failed[c.Addr].Error
			case c.Reason == ReasonGone && unmade[c.Addr]:
				c.Reason = ReasonNone
			}
			c.Dependencies = r.DependsOn
			if id, ok := imports[c.Addr]; ok && c.Action == Create && c.Reason == ReasonNone {
				// Adopted, not made: what depends on it sees the object
				// the agent holds (its id is the agent's name for it).
				c.ImportID = id
				if _, ok := adoptPending[c.Addr]; ok {
					c.Reason = ReasonInterruptedApply
				}
				c.SetAfter(withID(c.AfterValue(), id))
				imported[c.Addr] = c.AfterValue()
				continue
			}
			if c.Action.Creates() {
				creating[r.Addr] = true
				creatingInst[c.Addr] = true
			}
		}
		p.Changes = append(p.Changes, changes...)
	}
	for key, pr := range priors {
		if seen[key] {
			continue
		}
		reason := ReasonNoConfig
		if r := cfg.Resources[pr.obj.Addr.Resource]; r != nil {
			reason = ReasonNoKey
			switch pr.obj.Addr.Key.(type) {
			case nil:
				if r.Count != nil || r.ForEach != nil {
					reason = ReasonWrongRepetition
				}
			case addrs.IntKey:
				if r.Count == nil {
					reason = ReasonWrongRepetition
				}
			case addrs.StringKey:
				if r.ForEach == nil {
					reason = ReasonWrongRepetition
				}
			}
		}
		p.Changes = append(p.Changes, deleteChange(pr, nil, reason))
	}
	return diags
}

// withPriorValues replaces, in insts, each instance with configured
// attributes unknown (computed from attributes known only after apply)
// by the instance evaluated again with the values the state records of
// the objects it references, when it has a prior: so that a change of
// the configuration shows, rather than the prior value standing in.
//
// depsCreating says that something the block depends on is created or
// replaced (creating lists those objects): then an instance's pd too is
// evaluated again, so that only the attributes that depend on what is
// created stay unknown (and count as changed) rather than every unknown
// one.
func withPriorValues(cfg *config.Config, insts []*config.Instance, priors map[string]*prior, creating map[addrs.Instance]bool, imported map[addrs.Instance]cty.Value, depsCreating bool) {
	// An object's value is the configured one, its unknown attributes
	// (computed: id, qp_num, ...) from the state.
	// Each is made once per block, not once per instance referencing it.
	type value struct {
		v  cty.Value
		ok bool
	}
	merged := map[addrs.Instance]value{}
	valueOf := func(a addrs.Instance) (cty.Value, bool) {
		if m, done := merged[a]; done {
			return m.v, m.ok
		}
		pr, inst := priors[a.String()], cfg.Instances[a]
		known := cty.NilVal // where the unknown attributes come from
		switch {
		case imported[a] != cty.NilVal:
			known = imported[a]
		case pr != nil && !creating[a]:
			known = pr.value()
		}
		if known == cty.NilVal || inst == nil || known.IsNull() || !known.IsKnown() || inst.Value.IsNull() || !inst.Value.IsKnown() {
			merged[a] = value{}
			return cty.NilVal, false
		}
		m := inst.Value.AsValueMap()
		for k, v := range m {
			if !v.IsKnown() && known.Type().HasAttribute(k) {
				m[k] = known.GetAttr(k)
			}
		}
		v := cty.ObjectVal(m)
		merged[a] = value{v, true}
		return v, true
	}
	if len(insts) == 0 || !depsCreating && !cfg.UsesValuesAfterApply(insts[0].Resource) {
		return // pd alone (a protection domain's id) is the state's (withPriorPD)
	}
	for i, inst := range insts {
		if priors[inst.Addr.String()] == nil {
			continue
		}
		if names := inst.ValuesAfterApply(); len(names) == 0 || !depsCreating && !slices.ContainsFunc(names, func(name string) bool { return name != "pd" }) {
			continue
		}
		if again, diags := cfg.InstanceWith(inst.Addr, valueOf); !diags.HasErrors() {
			again.Agent = inst.Agent // chosen once, from what is known before apply
			insts[i] = again
		}
	}
}

// diffInstances plans the instances of one block, spread over the CPUs:
// they are independent of one another.
func diffInstances(insts []*config.Instance, priors map[string]*prior, depsCreating bool, replace map[addrs.Instance]ActionReason, gone map[addrs.Instance]bool) []*Change {
	out := make([]*Change, len(insts))
	workers := min(runtime.GOMAXPROCS(0), max(1, len(insts)/256))
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < len(insts); i += workers {
				inst := insts[i]
				out[i] = diffInstance(inst, priors[inst.Addr.String()], depsCreating, replace[inst.Addr], gone[inst.Addr])
			}
		}(w)
	}
	wg.Wait()
	return out
}

// diffInstance plans one configured object against its prior (nil when
// the state has none, or the agent no longer holds it).
func diffInstance(inst *config.Instance, pr *prior, depsCreating bool, forceReplace ActionReason, gone bool) *Change {
	schema := config.Schema(inst.Addr.Kind)
	ty := schema.ImpliedType()
	lc := inst.Resource.Lifecycle
	if pr == nil || pr.null() {
		c := &Change{Addr: inst.Addr, Action: Create, before: changeValue{v: cty.NullVal(ty)}, after: changeValue{v: inst.Value}, AfterSensitive: inst.Sensitive, Agent: inst.Agent}
		if gone {
			c.Reason = ReasonGone
		}
		return c
	}
	c := &Change{Addr: inst.Addr, before: changeValue{from: pr}, AfterSensitive: inst.Sensitive, Agent: inst.Agent, PriorAgent: pr.obj.Agent}
	if pr.obj.SensitiveAttributes != nil || inst.Sensitive != nil {
		c.BeforeSensitive = priorSensitive(pr.obj, inst)
	}
	if !lc.IgnoreAllChanges {
		// Room for the deepest path (block, nested block, attribute), so
		// that changedPaths's appends share it rather than each allocate:
		// the paths it returns are copies.
		c.Changed = changedPaths(schema, cty.NilVal, pr.fields, inst.Value, depsCreating, lc.IgnoreChanges, make(cty.Path, 0, 4), nil)
	}
	for _, path := range c.Changed {
		if config.RequiresReplace(inst.Addr.Kind, path) {
			c.RequiredReplace = append(c.RequiredReplace, path)
		}
	}
	switch {
	case forceReplace != ReasonNone:
		c.Action, c.Reason = DeleteThenCreate, forceReplace
	case len(c.RequiredReplace) > 0 || c.AgentChanged():
		c.Action, c.Reason = DeleteThenCreate, ReasonCannotUpdate
	case len(c.Changed) > 0:
		c.Action = Update
	default:
		// Nothing differs: the desired object is the prior one, computed
		// attributes included (made only if read).
		c.Action, c.after = NoOp, changeValue{from: pr}
		return c
	}
	before := pr.value()
	if c.Action == DeleteThenCreate && lc.CreateBeforeDestroy {
		c.Action = CreateThenDelete
	}
	after := reconcile(schema, before, inst.Value, depsCreating)
	if lc.IgnoreAllChanges {
		after = withoutComputed(schema, before)
	} else {
		after = ignoreChanges(after, before, lc.IgnoreChanges)
	}
	if c.Action.IsReplace() {
		c.SetAfter(after) // computed attributes unknown: a new object
	} else {
		c.SetAfter(withPriorComputed(schema, before, after))
	}
	return c
}

// deleteChange plans the deletion of a state object; inst is its
// configured instance (destroy), nil when it is not configured.
func deleteChange(pr *prior, inst *config.Instance, reason ActionReason) *Change {
	ty := config.Schema(pr.obj.Addr.Kind).ImpliedType()
	c := &Change{Addr: pr.obj.Addr, Action: Delete, Reason: reason, before: changeValue{from: pr}, after: changeValue{v: cty.NullVal(ty)},
		BeforeSensitive: priorSensitive(pr.obj, inst), Agent: pr.obj.Agent, PriorAgent: pr.obj.Agent}
	c.Dependencies = stateDependencies(pr.obj)
	return c
}

// AgentHandle is the agent's name for o: its address, unless it was made
// under a namespace or by a create_before_destroy replacement while the
// object it replaced held the address, or moved since (a moved object
// keeps the name it was made under).
func AgentHandle(o *state.Object) string {
	if o.Facts.AgentHandle != "" {
		return o.Facts.AgentHandle
	}
	return o.Addr.String()
}

// stateDependencies maps an object's recorded dependencies to blocks.
func stateDependencies(o *state.Object) []addrs.Resource {
	var out []addrs.Resource
	seen := map[addrs.Resource]bool{}
	for _, d := range o.Dependencies {
		if !seen[d.Resource] {
			seen[d.Resource] = true
			out = append(out, d.Resource)
		}
	}
	return out
}

func sourceless(sev hcl.DiagnosticSeverity, summary, detail string) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: sev, Summary: summary, Detail: detail}
}
