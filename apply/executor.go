package apply

import (
	"context"
	"errors"
	"fmt"
	"github.com/hashicorp/hcl/v2"
	"io"
	"sort"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/state"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// DefaultParallelism is -parallelism's default, as Terraform's.
const DefaultParallelism = 10

// Options are what Apply works with.
type Options struct {
	Fabric   Fabric
	Recorder state.Recorder
	// Config builds the specs of objects to create or update; it may be
	// nil for a plan that only deletes.
	Config *config.Config
	// Prior is the state the plan was made from: the create tokens of
	// objects to delete and the ids of objects left alone.
	Prior *state.State
	// Parallelism bounds the fabric calls in flight (DefaultParallelism
	// when 0). With a Starter fabric, an endpoint's create holds a slot
	// for its call only: the waits for connections are not bounded; with
	// a DeleteStarter, a delete holds one while it is queued. With
	// HoldSlots, each operation holds its slot until it completes, so
	// that at most Parallelism connections are being made at once.
	Parallelism int
	HoldSlots   bool
	// Progress receives Terraform's progress lines, one whole line per
	// write.
	Progress io.Writer
	// Events, when set, receives each progress line's report as well, for
	// a machine-readable UI; calls do not overlap.
	Events func(Event)
	// NewToken returns a fresh create token (a UUID when nil); it is
	// called concurrently.
	NewToken func() string
	// StillInterval is how often an operation still running is reported
	// (DefaultStillInterval when 0).
	StillInterval time.Duration
	// Namespace qualifies the names of the objects it creates (see
	// HandleIn); objects made before keep the names the state records.
	Namespace string
}

// Report is what an apply did and did not do.
type Report struct {
	Added, Changed, Destroyed int
	// Imported counts the objects import blocks adopted.
	Imported int
	// Forgotten counts the objects removed blocks took out of the state.
	Forgotten int
	// Errors lists each failed operation once.
	Errors []OpError
	// Skipped lists, per failed operation, the objects not changed because
	// they depend on it.
	Skipped []SkipNote
	// NotStarted lists the operations left when the walk was stopped.
	NotStarted []string
	// Cancelled lists the operations the stop undid while they waited
	// (endpoints not yet established): nothing of them remains.
	Cancelled []string
	// FabricGone is the first error that said the fabric is gone (the
	// agent exited), which stopped the walk on that agent; nil otherwise.
	FabricGone error
	// GoneAgents are the keys of the agents whose fabric went ("" for the
	// local agent), sorted: no further operation started on them, while
	// those on the other agents went on.
	GoneAgents []string
	// StateFailed is the first error of the state recording a change
	// (ErrStateFailed), which stopped the walk; nil otherwise.
	StateFailed error
	// Interrupted: the context was cancelled during the walk.
	Interrupted bool
	// UnknownOutputs lists outputs not recorded because their value is
	// still unknown after apply.
	UnknownOutputs []string
	// Checks are the warnings of the check blocks, evaluated with what
	// apply made.
	Checks hcl.Diagnostics
}

// OpError is one failed operation.
type OpError struct {
	Addr addrs.Instance
	Op   string // "create", "update", "delete", "record", "precondition", "postcondition"
	Err  error
}

func (e OpError) Error() string { return fmt.Sprintf("%s: %s failed: %v", e.Addr, e.Op, e.Err) }

func (e OpError) Unwrap() error { return e.Err }

// SkipNote names the objects skipped because of one failed operation.
type SkipNote struct {
	Cause   addrs.Instance
	Objects []string // "endpoint.client[3] (create)"
}

// Failed reports whether anything went wrong or was left undone.
func (r *Report) Failed() bool {
	return len(r.Errors) > 0 || r.Interrupted || len(r.NotStarted) > 0 || len(r.Cancelled) > 0
}

type executor struct {
	Options
	plan       *planner.Plan
	graph      *planner.Graph
	sem        chan struct{}
	byResource map[addrs.Resource][]*config.Instance
	noCancel   context.Context

	mu     sync.Mutex
	ids    map[addrs.Instance]string  // ids of objects alive now, for pd references
	finals map[addrs.Instance]applied // what was created or updated, for outputs
	// replacements are the create_before_destroy replacements made, kept
	// to be recorded again without their deposed object once it is gone.
	replacements map[addrs.Instance]replacement
	held         heldNames
	making       map[addrs.Instance]making // written before the walk, then only read
	// agents are those the walk's operations use; gone, those whose
	// fabric went (under mu).
	agents  map[string]bool
	gone    map[string]bool
	report  Report
	outLock sync.Mutex
}

// Apply carries out p and records every completed change through
// opts.Recorder before reporting it. It does not close the Recorder.
func Apply(ctx context.Context, p *planner.Plan, opts Options) *Report {
	e := newExecutor(ctx, p, opts)
	// Moved objects are recorded at their new addresses before anything
	// refers to them there.
	if err := e.recordMoves(opts.Prior); err != nil {
		e.report.Errors = append(e.report.Errors, *err)
		return &e.report
	}
	// Objects removed blocks forget leave the state, and nothing else.
	for _, f := range p.Forgets {
		if err := e.Recorder.Record(state.DeleteObject(f.Addr)); err != nil {
			e.report.Errors = append(e.report.Errors, OpError{f.Addr, "record", err})
			return &e.report
		}
		e.report.Forgotten++
	}
	// Objects a stopped create_before_destroy left deposed go first.
	for _, d := range p.Deposed {
		if err := e.destroyDeposed(d); err != nil {
			e.report.Errors = append(e.report.Errors, *err)
			return &e.report
		}
	}
	// Objects the agent lost are dropped from the state first; those still
	// configured are recorded again when re-created. Those it holds with
	// new facts (reconnected) are recorded with them.
	for _, d := range p.Drift {
		if err := e.recordDrift(d); err != nil {
			e.report.Errors = append(e.report.Errors, OpError{d.Addr, "record", err})
			return &e.report
		}
	}

	if err := e.recordMaking(); err != nil {
		e.report.Errors = append(e.report.Errors, *err)
		return &e.report
	}
	// Once an agent's fabric is gone no operation starts on it: each would
	// fail the same way. The walk goes on for the other agents' objects,
	// and stops, as on Ctrl-C, once every agent it uses is gone.
	walkCtx, stopWalk := context.WithCancel(ctx)
	defer stopWalk()
	results := Walk(walkCtx, e.graph, func(i int) error {
		err := e.visit(walkCtx, i)
		switch {
		case errors.Is(err, ErrFabricGone):
			if e.agentGone(nodeAgent(e.graph.Nodes[i]), err) {
				stopWalk()
			}
		case errors.Is(err, ErrStateFailed):
			e.mu.Lock()
			if e.report.StateFailed == nil {
				e.report.StateFailed = err
			}
			e.mu.Unlock()
			stopWalk()
		}
		return err
	})
	e.collect(ctx, results)
	if len(e.report.Errors) == 0 && !e.report.Interrupted {
		e.recordOutputs()
		if e.Config != nil && !p.Destroy {
			e.report.Checks = e.Config.ChecksWith(e.valueOf)
		}
	} else if e.Config != nil && e.report.StateFailed == nil {
		// As Terraform, the outputs that use nothing the apply left
		// undone are recorded all the same; the others keep their
		// recorded values until an apply completes.
		undone := map[addrs.Resource]bool{}
		for i, res := range results {
			if n := e.graph.Nodes[i]; res.Outcome != Done && n.Change != nil {
				undone[n.Change.Addr.Resource] = true
			}
		}
		e.recordOutputsIf(func(name string) bool {
			o := e.Config.Outputs[name]
			if o == nil {
				return true // removed from the configuration: deleted
			}
			for _, r := range o.DependsOn {
				if undone[r] {
					return false
				}
			}
			return true
		})
	}
	return &e.report
}

// recordMoves records the plan's moves in the state, one record each: a
// move whose new address another object leaves goes after that one's. Then
// the objects whose dependencies named a moved one. orig is the state the
// plan was made from; e.Prior has the moves made.
func (e *executor) recordMoves(orig *state.State) *OpError {
	if len(e.plan.Moves) == 0 || orig == nil {
		return nil
	}
	pending := append([]planner.Move(nil), e.plan.Moves...)
	for len(pending) > 0 {
		leaving := make(map[addrs.Instance]bool, len(pending))
		for _, m := range pending {
			leaving[m.From] = true
		}
		rest := pending[:0]
		for _, m := range pending {
			if leaving[m.To] {
				rest = append(rest, m) // its object still holds m.To
				continue
			}
			if o := e.Prior.Object(m.To); o != nil {
				if err := e.Recorder.Record(state.MoveObject(m.From, o)); err != nil {
					return &OpError{m.To, "record", fmt.Errorf("moving it from %s: %w", m.From, err)}
				}
			}
		}
		if len(rest) == len(pending) {
			// A cycle of moves: the planner resolves chains to one move
			// per object and collapses cycles, so this cannot be; never loop.
			return &OpError{rest[0].To, "record", fmt.Errorf("moves form a cycle through %s", rest[0].From)}
		}
		pending = rest
	}
	moved := make(map[addrs.Instance]bool, len(e.plan.Moves))
	for _, m := range e.plan.Moves {
		moved[m.To] = true
	}
	for _, a := range e.Prior.Addresses() {
		if o := e.Prior.Object(a); !moved[a] && orig.Object(a) != o {
			if err := e.Recorder.Record(state.PutObject(o)); err != nil {
				return &OpError{a, "record", err}
			}
		}
	}
	return nil
}

// newExecutor prepares to carry out p: the defaults opts leaves out, and
// the ids of the objects p leaves as they are.
func newExecutor(ctx context.Context, p *planner.Plan, opts Options) *executor {
	if opts.Parallelism <= 0 {
		opts.Parallelism = DefaultParallelism
	}
	if opts.NewToken == nil {
		opts.NewToken = uuid.NewString
	}
	// The plan names moved objects by their new addresses.
	opts.Prior = p.MovedState(opts.Prior)
	if opts.Progress == nil {
		opts.Progress = io.Discard
	}
	if opts.Recorder != nil {
		opts.Recorder = failingRecorder{opts.Recorder}
	}
	e := &executor{
		Options:  opts,
		plan:     p,
		graph:    p.Graph(),
		sem:      make(chan struct{}, opts.Parallelism),
		noCancel: context.WithoutCancel(ctx),
		ids:      map[addrs.Instance]string{},
		finals:   map[addrs.Instance]applied{},

		replacements: map[addrs.Instance]replacement{},
		held:         heldNames{prior: opts.Prior},
		making:       map[addrs.Instance]making{},
	}
	if opts.Config != nil {
		e.byResource = planner.InstancesByResource(opts.Config)
	}
	e.agents, e.gone = map[string]bool{}, map[string]bool{}
	for _, n := range e.graph.Nodes {
		if n.Op != planner.OpBarrier {
			e.agents[nodeAgent(n)] = true
		}
	}
	return e
}

// visit runs one node: barriers at once, operations once a parallelism
// slot is free (giving up if the walk is being stopped meanwhile).
func (e *executor) visit(ctx context.Context, i int) error {
	n := e.graph.Nodes[i]
	if n.Op == planner.OpBarrier {
		return nil
	}
	if e.isGone(nodeAgent(n)) {
		return ErrNotStarted
	}
	select {
	case e.sem <- struct{}{}:
	case <-ctx.Done():
		return ErrNotStarted
	}
	held := true
	release := func() {
		if held {
			held = false
			<-e.sem
		}
	}
	defer release()
	if ctx.Err() != nil || e.isGone(nodeAgent(n)) {
		return ErrNotStarted
	}
	switch n.Op {
	case planner.OpCreate:
		return e.create(ctx, n.Change, release)
	case planner.OpUpdate:
		return e.update(ctx, n.Change)
	case planner.OpDelete:
		return e.delete(n.Change, release)
	}
	return nil
}

// started, ticking and done report an operation's start, its "still
// running" ticks and its completion; id is the bracketed identity
// ("qp_num=17"), if the line shows one.
func (e *executor) started(a addrs.Instance, deposed, action, id, message string) {
	k, v := splitIdentity(id)
	e.emit(Event{Type: EventStart, Addr: a, Deposed: deposed, Action: action, IDKey: k, IDValue: v, Message: message})
}

func (e *executor) done(a addrs.Instance, deposed, action string, elapsed time.Duration, id, message string) {
	k, v := splitIdentity(id)
	e.emit(Event{Type: EventComplete, Addr: a, Deposed: deposed, Action: action, Elapsed: elapsed, IDKey: k, IDValue: v, Message: message})
}

// errored reports an operation that failed, for a machine-readable UI
// (apply_errored): Terraform's human output has no line for it, the
// error comes at the end.
func (e *executor) errored(a addrs.Instance, deposed, action string, elapsed time.Duration) {
	e.emit(Event{Type: EventErrored, Addr: a, Deposed: deposed, Action: action, Elapsed: elapsed})
}

func (e *executor) cancelled(a addrs.Instance, action string, elapsed time.Duration, message string) {
	e.emit(Event{Type: EventCancelled, Addr: a, Action: action, Elapsed: elapsed, Message: message})
}

// valueOf is an object's value as the configuration sees it now: what
// this apply made of it, or else what the plan expects of it (for an
// object left as it is, its prior value, computed attributes included).
func (e *executor) valueOf(a addrs.Instance) (cty.Value, bool) {
	e.mu.Lock()
	f, ok := e.finals[a]
	e.mu.Unlock()
	if ok {
		return f.value(), true
	}
	if c := e.plan.Change(a); c != nil && c.Action == planner.NoOp && !c.AfterValue().IsNull() {
		return c.AfterValue(), true
	}
	return cty.NilVal, false
}

// lookupID is the id of the object at a: the one this apply made, or
// else the plan's for an object it keeps (read only when asked: an
// unchanged object's value is made on first read).
func (e *executor) lookupID(a addrs.Instance) (string, bool) {
	e.mu.Lock()
	id, ok := e.ids[a]
	e.mu.Unlock()
	if ok {
		return id, true
	}
	c := e.plan.Change(a)
	if c == nil || c.Action.Creates() {
		return "", false
	}
	if after := c.AfterValue(); !after.IsNull() && after.IsKnown() {
		if id := after.GetAttr("id"); id.IsKnown() && !id.IsNull() {
			return id.AsString(), true
		}
	}
	return "", false
}

// create makes the object; release gives back the parallelism slot, which
// a Starter fabric's create holds only for its call, not while waiting.
func (e *executor) create(ctx context.Context, c *planner.Change, release func()) error {
	if c.Importing() {
		return e.importObject(ctx, c)
	}
	mk := e.making[c.Addr]
	h, token, deposed := mk.handle, mk.token, mk.deposed
	// Failing before the agent is asked, the object is not made: the
	// state must not record it as being made.
	notMade := func(err error) error {
		if !mk.late {
			if uerr := e.unpend(c); uerr != nil {
				return uerr
			}
		}
		return err
	}
	inst, planned, err := resolveAfterApply(e.Config, c.Addr, c.AfterValue(), e.valueOf)
	if err != nil {
		return notMade(OpError{c.Addr, "create", err})
	}
	spec, pd, err := specFor(e.Config, e.byResource, inst, planned, e.lookupID, e.valueOf)
	if err != nil {
		return notMade(OpError{c.Addr, "create", err})
	}
	if e.Config.Instances[c.Addr].PreconditionsAfterApply { // inst may be evaluated anew, without it
		if err := conditionsError(e.Config.CheckConditions(c.Addr, cty.NilVal, e.valueOf)); err != nil {
			return notMade(OpError{c.Addr, "precondition", err})
		}
	}
	if ctx.Err() != nil {
		return ErrNotStarted
	}
	if mk.late {
		if err := e.Recorder.Record(state.PutObject(mk.pendingObject(c))); err != nil {
			return OpError{c.Addr, "record", fmt.Errorf("the state could not record that it is being made, so it was not: %w", err)}
		}
	}
	e.started(c.Addr, "", "create", "", fmt.Sprintf("%s: Creating...", c.Addr))
	start := time.Now()
	stopStill := e.still(c.Addr, "", c.Addr.String(), "create", "creating")
	defer stopStill()
	var facts state.Facts
	if st, ok := e.Fabric.(Starter); ok {
		var wait func() (state.Facts, error)
		wait, err = st.StartCreate(ctx, h, spec, token)
		if !e.HoldSlots {
			release()
		}
		if errors.Is(err, ErrNotStarted) {
			if mk.late { // collect leaves those alone: see making.late
				if uerr := e.unpend(c); uerr != nil {
					return uerr
				}
			}
			return ErrNotStarted // collect records that it was not made
		}
		if err == nil {
			facts, err = wait()
		}
	} else {
		facts, err = e.Fabric.Create(e.noCancel, h, spec, token)
	}
	stopStill()
	if err != nil {
		if uerr := e.unpend(c); uerr != nil {
			return uerr
		}
		if errors.Is(err, ErrCancelled) {
			e.cancelled(c.Addr, "create", time.Since(start), fmt.Sprintf("%s: Creation cancelled after %s (%v)", c.Addr, elapsed(start), err))
			return err
		}
		e.errored(c.Addr, "", "create", time.Since(start))
		return OpError{c.Addr, "create", err}
	}
	facts.CreateToken = token
	if facts.CreatedAt.IsZero() {
		facts.CreatedAt = time.Now().UTC()
	}
	if facts.AgentHandle == "" && h.Name != c.Addr.String() {
		facts.AgentHandle = h.Name
	}
	facts.Deposed = deposed
	final := appliedOf(planned, facts, pd, c.Addr)
	if err := e.record(c, final, facts); err != nil {
		return err
	}
	if deposed != nil {
		e.mu.Lock()
		e.replacements[c.Addr] = replacement{final, facts}
		e.mu.Unlock()
	}
	e.setID(c.Addr, final)
	id := identityOf(c.Addr, final.planned, final.attr)
	e.done(c.Addr, "", "create", time.Since(start), id, fmt.Sprintf("%s: Creation complete after %s [%s]", c.Addr, elapsed(start), id))
	return e.postconditions(c.Addr, inst, final)
}

// postconditions checks inst's postconditions against the object made or
// updated: a failure is the operation's error, the object stays (recorded),
// as in Terraform.
func (e *executor) postconditions(addr addrs.Instance, inst *config.Instance, final applied) error {
	if inst == nil || inst.Resource == nil || len(inst.Resource.Lifecycle.Postconditions) == 0 {
		return nil
	}
	if err := conditionsError(e.Config.CheckConditions(addr, final.value(), e.valueOf)); err != nil {
		return OpError{addr, "postcondition", err}
	}
	return nil
}

func (e *executor) update(ctx context.Context, c *planner.Change) error {
	inst, planned, err := resolveAfterApply(e.Config, c.Addr, c.AfterValue(), e.valueOf)
	if err != nil {
		return OpError{c.Addr, "update", err}
	}
	spec, pd, err := specFor(e.Config, e.byResource, inst, planned, e.lookupID, e.valueOf)
	if err != nil {
		return OpError{c.Addr, "update", err}
	}
	if e.Config.Instances[c.Addr].PreconditionsAfterApply { // inst may be evaluated anew, without it
		if err := conditionsError(e.Config.CheckConditions(c.Addr, cty.NilVal, e.valueOf)); err != nil {
			return OpError{c.Addr, "precondition", err}
		}
	}
	before := identity(c.Addr, c.BeforeValue())
	e.started(c.Addr, "", "update", before, fmt.Sprintf("%s: Modifying... [%s]", c.Addr, before))
	start := time.Now()
	h, prior := HandleIn(c.Addr, e.Namespace), e.priorObject(c.Addr)
	h.Agent = c.Agent
	if prior != nil {
		h = handleOf(prior)
	}
	stopStill := e.still(c.Addr, "", c.Addr.String(), "update", "modifying")
	facts, err := e.updateOnFabric(ctx, c, h, spec, prior)
	stopStill()
	if errors.Is(err, ErrCancelled) {
		e.cancelled(c.Addr, "update", time.Since(start), fmt.Sprintf("%s: Modification cancelled after %s (%v)", c.Addr, elapsed(start), err))
		return err
	}
	if err != nil {
		e.errored(c.Addr, "", "update", time.Since(start))
		return OpError{c.Addr, "update", err}
	}
	if prior != nil {
		// Keep what the update does not report: the handle, the token and
		// the creation time.
		if facts.AgentHandle == "" {
			facts.AgentHandle = prior.Facts.AgentHandle
		}
		if facts.CreateToken == "" {
			facts.CreateToken = prior.Facts.CreateToken
		}
		if facts.CreatedAt.IsZero() {
			facts.CreatedAt = prior.Facts.CreatedAt
		}
	}
	final := appliedOf(planned, facts, pd, c.Addr)
	if err := e.record(c, final, facts); err != nil {
		return err
	}
	id := identityOf(c.Addr, final.planned, final.attr)
	e.done(c.Addr, "", "update", time.Since(start), id, fmt.Sprintf("%s: Modifications complete after %s [%s]", c.Addr, elapsed(start), id))
	return e.postconditions(c.Addr, inst, final)
}

// updateOnFabric changes in place what changed and, for an endpoint
// whose listener is replaced (Change.Reconnects), waits for its new
// connection, whose facts the state records.
func (e *executor) updateOnFabric(ctx context.Context, c *planner.Change, h Handle, spec Spec, prior *state.Object) (state.Facts, error) {
	rc, ok := e.Fabric.(Reconnecter)
	if !c.Reconnects || !ok {
		return e.Fabric.Update(e.noCancel, h, spec, c.Changed)
	}
	if len(c.Changed) > 0 {
		if _, err := e.Fabric.Update(e.noCancel, h, spec, c.Changed); err != nil {
			return state.Facts{}, err
		}
	}
	reconnects := 0
	if prior != nil {
		reconnects = prior.Facts.Reconnects
	}
	return rc.AwaitReconnect(ctx, h, spec, reconnects)
}

func (e *executor) delete(c *planner.Change, release func()) error {
	h, token := HandleIn(c.Addr, e.Namespace), ""
	h.Agent = c.PriorAgent
	if prior := e.priorObject(c.Addr); prior != nil {
		h, token = handleOf(prior), prior.Facts.CreateToken
	}
	label, deposed := c.Addr.String(), ""
	if c.Action == planner.CreateThenDelete {
		deposed = planner.DeposedKey(token)
		label += " (deposed object " + deposed + ")"
	}
	before := identity(c.Addr, c.BeforeValue())
	e.started(c.Addr, deposed, "delete", before, fmt.Sprintf("%s: Destroying... [%s]", label, before))
	start := time.Now()
	stopStill := e.still(c.Addr, deposed, label, "delete", "destroying")
	var err error
	if ds, ok := e.Fabric.(DeleteStarter); ok {
		var wait func() error
		wait, err = ds.StartDelete(e.noCancel, h, token)
		if !e.HoldSlots {
			release()
		}
		if err == nil {
			err = wait()
		}
	} else {
		err = e.Fabric.Delete(e.noCancel, h, token)
	}
	stopStill()
	if err != nil {
		e.errored(c.Addr, deposed, "delete", time.Since(start))
		return OpError{c.Addr, "delete", err}
	}
	// After create_before_destroy the address already holds the new
	// object, recorded by its create with this one as deposed: it is
	// recorded again without it.
	if c.Action == planner.CreateThenDelete {
		e.mu.Lock()
		r, ok := e.replacements[c.Addr]
		e.mu.Unlock()
		if ok {
			r.facts.Deposed = nil
			if err := e.record(c, r.final, r.facts); err != nil {
				return err
			}
		}
	} else if err := e.Recorder.Record(state.DeleteObject(c.Addr)); err != nil {
		return OpError{c.Addr, "record", fmt.Errorf("destroyed, but the state could not record it: %w", err)}
	}
	e.done(c.Addr, deposed, "delete", time.Since(start), "", fmt.Sprintf("%s: Destruction complete after %s", label, elapsed(start)))
	return nil
}

// replacement is a create_before_destroy replacement as recorded.
type replacement struct {
	final applied
	facts state.Facts
}

// destroyDeposed destroys an object a stopped create_before_destroy left
// deposed, then records its replacement without it.
func (e *executor) destroyDeposed(d planner.Deposed) *OpError {
	deposed := planner.DeposedKey(d.Token)
	label := fmt.Sprintf("%s (deposed object %s)", d.Addr, deposed)
	if d.Pending { // made by an interrupted apply, not a replacement's leftover
		label = d.Addr.String()
	}
	e.started(d.Addr, deposed, "delete", "id="+d.Handle, fmt.Sprintf("%s: Destroying... [id=%s]", label, d.Handle))
	start := time.Now()
	stopStill := e.still(d.Addr, deposed, label, "delete", "destroying")
	err := e.Fabric.Delete(e.noCancel, Handle{Addr: d.Addr, Name: d.Handle, Agent: d.Agent}, d.Token)
	stopStill()
	if err != nil {
		if d.Pending {
			return &OpError{d.Addr, "delete", fmt.Errorf("the object an interrupted apply made, %s: %w", d.Handle, err)}
		}
		return &OpError{d.Addr, "delete", fmt.Errorf("its deposed object %s: %w", d.Handle, err)}
	}
	var ch *state.Change
	switch prior := e.priorObject(d.Addr); {
	case prior == nil:
	case prior.Facts.Pending && handleOf(prior).Name == d.Handle:
		// Made by an interrupted apply, and no longer configured.
		del := state.DeleteObject(d.Addr)
		ch = &del
	case prior.Facts.Deposed != nil:
		o := prior.DeepCopy()
		o.Facts.Deposed = nil
		put := state.PutObject(o)
		ch = &put
	}
	if ch != nil {
		if err := e.Recorder.Record(*ch); err != nil {
			return &OpError{d.Addr, "record", fmt.Errorf("its deposed object was destroyed, but the state could not record it: %w", err)}
		}
	}
	e.report.Destroyed++
	e.done(d.Addr, deposed, "delete", time.Since(start), "", fmt.Sprintf("%s: Destruction complete after %s", label, elapsed(start)))
	return nil
}

// recordDrift records what the refresh found of one object.
func (e *executor) recordDrift(d planner.Drift) error {
	if d.Deleted() {
		return e.Recorder.Record(state.DeleteObject(d.Addr))
	}
	prior := e.priorObject(d.Addr)
	if prior == nil {
		return nil // gone from the state since the plan: nothing to refresh
	}
	v, _ := d.After.UnmarkDeep()
	raw, err := ctyjson.Marshal(v, v.Type())
	if err != nil {
		return fmt.Errorf("its refreshed attributes could not be encoded: %w", err)
	}
	o := prior.DeepCopy()
	o.Attributes, o.Facts = raw, d.Facts
	return e.Recorder.Record(state.PutObject(o))
}

func (e *executor) record(c *planner.Change, final applied, facts state.Facts) error {
	raw, err := final.marshal()
	if err != nil {
		return OpError{c.Addr, "record", fmt.Errorf("made, but its attributes could not be encoded for the state: %w", err)}
	}
	o := &state.Object{Addr: c.Addr, Attributes: raw, Dependencies: dependencyAddrs(c), Facts: facts, SensitiveAttributes: c.SensitiveAttributes(), Agent: c.Agent}
	if err := e.Recorder.Record(state.PutObject(o)); err != nil {
		if _, ok := e.making[c.Addr]; ok {
			// Its making was recorded before it was asked for: the next
			// plan finds it in the agent by its create token, and adopts it.
			return OpError{c.Addr, "record", fmt.Errorf("made, but the state could not record that it was (it records the object as being made, which the next plan adopts from the agent): %w", err)}
		}
		return OpError{c.Addr, "record", fmt.Errorf("changed, but the state could not record it (it keeps the object as it was, and the next plan shows what differs): %w", err)}
	}
	e.mu.Lock()
	e.finals[c.Addr] = final
	e.mu.Unlock()
	return nil
}

// making is how apply makes one object: the agent's name for it, its
// create token and, for a create_before_destroy replacement, the object
// it replaces.
type making struct {
	handle  Handle
	token   string
	deposed *state.DeposedObject
	// late: a replacement that destroys first, whose object the state
	// records until the delete completes; it is recorded as being made
	// once the create starts.
	late bool
}

// pendingObject is what the state records of an object being made.
func (mk making) pendingObject(c *planner.Change) *state.Object {
	facts := state.Facts{AgentHandle: mk.handle.Name, CreateToken: mk.token, Status: "creating", Pending: true, Deposed: mk.deposed}
	return &state.Object{Addr: c.Addr, Dependencies: dependencyAddrs(c), Facts: facts, Agent: mk.handle.Agent}
}

// recordMaking chooses the name and token of every object the plan
// creates and records each, before the walk asks the agent for any, as
// being made: its agent name and create token, no attributes yet (small,
// and submitted together, so that the walk waits for one write rather
// than one per object). An apply killed before it records an outcome
// leaves the state naming what the agent may hold, which the next plan
// adopts or drops (state.Facts.Pending).
func (e *executor) recordMaking() *OpError {
	var last *state.Pending
	var lastAddr addrs.Instance
	for _, c := range e.plan.Changes {
		if !c.Action.Creates() || c.Importing() {
			continue
		}
		token := e.NewToken()
		h, deposed := HandleIn(c.Addr, e.Namespace), (*state.DeposedObject)(nil)
		h.Agent = c.Agent
		if prior := e.priorObject(c.Addr); prior != nil && c.Action == planner.CreateThenDelete {
			// The prior object still holds its name: the replacement
			// takes another, and the state keeps the prior one as
			// deposed until it is destroyed.
			h.Name = replacementName(h.Name, prior, token)
			deposed = &state.DeposedObject{AgentHandle: handleOf(prior).Name, CreateToken: prior.Facts.CreateToken}
			if prior.Agent != c.Agent {
				deposed.Agent = prior.Agent
			}
		} else {
			h.Name = e.held.freeName(h.Name, c.Addr, token)
		}
		mk := making{handle: h, token: token, deposed: deposed, late: c.Action == planner.DeleteThenCreate}
		e.making[c.Addr] = mk
		if !mk.late {
			last, lastAddr = e.Recorder.Submit(state.PutObject(mk.pendingObject(c))), c.Addr
		}
	}
	if last == nil {
		return nil
	}
	// Durable in submission order: the last one durable, all are.
	if err := last.Wait(); err != nil {
		return &OpError{lastAddr, "record", fmt.Errorf("the state could not record the objects to make, so none was made: %w", err)}
	}
	return nil
}

// unpend undoes recordMaking when the create failed or did not start:
// the state holds again what it held before (the object a
// create_before_destroy replacement replaces, or nothing).
func (e *executor) unpend(c *planner.Change) error {
	if err := e.Recorder.Record(e.unmade(c)); err != nil {
		return OpError{c.Addr, "record", fmt.Errorf("the create failed, and the state still records it as being made: %w", err)}
	}
	return nil
}

// unmade is the change that records c's object as not made.
func (e *executor) unmade(c *planner.Change) state.Change {
	if prior := e.priorObject(c.Addr); prior != nil && c.Action == planner.CreateThenDelete {
		return state.PutObject(prior)
	}
	return state.DeleteObject(c.Addr)
}

func dependencyAddrs(c *planner.Change) []addrs.Instance {
	deps := make([]addrs.Instance, len(c.Dependencies))
	for i, d := range c.Dependencies {
		deps[i] = addrs.Instance{Resource: d}
	}
	return deps
}

func (e *executor) setID(a addrs.Instance, final applied) {
	if id := final.attr("id"); id.IsKnown() && !id.IsNull() && id.Type() == cty.String {
		e.mu.Lock()
		e.ids[a] = id.AsString()
		e.mu.Unlock()
	}
}

func (e *executor) priorObject(a addrs.Instance) *state.Object {
	if e.Prior == nil {
		return nil
	}
	return e.Prior.Object(a)
}

// collect turns the walk's results into the report.
func (e *executor) collect(ctx context.Context, results []Result) {
	r := &e.report
	skipped := map[int][]string{}
	var unmade []*planner.Change
	for i, res := range results {
		n := e.graph.Nodes[i]
		switch res.Outcome {
		case Done:
			switch n.Op {
			case planner.OpCreate:
				if n.Change.Importing() {
					r.Imported++
				} else {
					r.Added++
				}
			case planner.OpUpdate:
				r.Changed++
			case planner.OpDelete:
				r.Destroyed++
			}
		case Failed:
			var oe OpError
			if !errors.As(res.Err, &oe) {
				oe = OpError{Err: res.Err}
				if n.Change != nil {
					oe.Addr = n.Change.Addr
				}
			}
			r.Errors = append(r.Errors, oe)
		case Skipped:
			if n.Change != nil {
				skipped[res.Cause] = append(skipped[res.Cause], fmt.Sprintf("%s (%s)", n.Change.Addr, opName(n.Op)))
			}
		case NotStarted:
			if n.Change != nil {
				r.NotStarted = append(r.NotStarted, fmt.Sprintf("%s (%s)", n.Change.Addr, opName(n.Op)))
			}
		case Cancelled:
			if n.Change != nil {
				r.Cancelled = append(r.Cancelled, fmt.Sprintf("%s (%s)", n.Change.Addr, opName(n.Op)))
			}
		}
		// Only a create not made leaves a record to undo: a replacement's
		// delete not started (create_before_destroy) follows a create that
		// was made and recorded, which must stay.
		if (res.Outcome == Skipped || res.Outcome == NotStarted) && n.Change != nil && n.Op == planner.OpCreate {
			unmade = append(unmade, n.Change)
		}
	}
	// Objects recorded as being made and never asked for are not.
	var last *state.Pending
	var lastAddr addrs.Instance
	for _, c := range unmade {
		if mk, ok := e.making[c.Addr]; ok && !mk.late && c.Action.Creates() {
			last, lastAddr = e.Recorder.Submit(e.unmade(c)), c.Addr
		}
	}
	if last != nil {
		if err := last.Wait(); err != nil {
			r.Errors = append(r.Errors, OpError{lastAddr, "record", fmt.Errorf("the objects not made are still recorded as being made: %w", err)})
		}
	}
	causes := make([]int, 0, len(skipped))
	for c := range skipped {
		causes = append(causes, c)
	}
	sort.Ints(causes)
	for _, c := range causes {
		r.Skipped = append(r.Skipped, SkipNote{Cause: e.graph.Nodes[c].Change.Addr, Objects: skipped[c]})
	}
	sort.Slice(r.Errors, func(i, j int) bool { return r.Errors[i].Addr.Less(r.Errors[j].Addr) })
	r.Interrupted = ctx.Err() != nil
}

// recordOutputs records the outputs that changed and whose values are
// known.
func (e *executor) recordOutputs() { e.recordOutputsIf(func(string) bool { return true }) }

// recordOutputsIf records the plan's output changes that keep says to.
func (e *executor) recordOutputsIf(keep func(name string) bool) {
	// Outputs known only after apply are evaluated again with the values
	// apply made (the others keep the plan's).
	// A refresh-only apply makes nothing: what its plan showed unknown
	// stays unrecorded (the configuration's values are not objects').
	var values map[string]cty.Value
	changed := e.plan.ChangedOutputs()
	if e.Config != nil && len(changed) > 0 && !e.plan.RefreshOnly {
		values = e.Config.OutputsWith(func(a addrs.Instance) (cty.Value, bool) {
			if f, ok := e.finals[a]; ok {
				return f.value(), true
			}
			if c := e.plan.Change(a); c != nil && c.Action != planner.Delete {
				return c.AfterValue(), true
			}
			return cty.NilVal, false
		})
	}
	for _, oc := range changed {
		if !keep(oc.Name) {
			continue
		}
		var ch state.Change
		switch oc.Action {
		case planner.Delete:
			ch = state.DeleteOutput(oc.Name)
		default:
			after := oc.After
			if v, ok := values[oc.Name]; ok && !after.IsWhollyKnown() && v.IsWhollyKnown() {
				after = v
			}
			v, _ := after.UnmarkDeep()
			if !v.IsWhollyKnown() {
				if !e.plan.RefreshOnly { // there, unknown until the objects are made
					e.report.UnknownOutputs = append(e.report.UnknownOutputs, oc.Name)
				}
				continue
			}
			if v.IsNull() { // known only now to be null: no output, as in Terraform
				ch = state.DeleteOutput(oc.Name)
				break
			}
			raw, err := ctyjson.Marshal(v, v.Type())
			if err != nil {
				e.report.UnknownOutputs = append(e.report.UnknownOutputs, oc.Name)
				continue
			}
			ty, _ := ctyjson.MarshalType(v.Type())
			ch = state.PutOutput(oc.Name, &state.Output{Value: raw, Type: ty, Sensitive: oc.Sensitive})
		}
		if err := e.Recorder.Record(ch); err != nil {
			e.report.Errors = append(e.report.Errors, OpError{Op: "record", Err: fmt.Errorf("output %s: %w", oc.Name, err)})
		}
	}
}

func opName(op planner.Op) string {
	switch op {
	case planner.OpCreate:
		return "create"
	case planner.OpUpdate:
		return "update"
	case planner.OpDelete:
		return "delete"
	}
	return "barrier"
}

// identity is what a progress line shows in brackets: an endpoint's QP
// number once known, otherwise the id.
func identity(a addrs.Instance, v cty.Value) string {
	return identityOf(a, v, v.GetAttr)
}

// identityOf is identity of the object v whose attributes attr reads.
func identityOf(a addrs.Instance, v cty.Value, attr func(string) cty.Value) string {
	if v.IsNull() || !v.IsKnown() {
		return "id=" + a.String()
	}
	if a.Kind == addrs.Endpoint {
		if q := attr("qp_num"); q.IsKnown() && !q.IsNull() {
			return "qp_num=" + config.NumberString(q)
		}
	}
	if id := attr("id"); id.IsKnown() && !id.IsNull() {
		return "id=" + id.AsString()
	}
	return "id=" + a.String()
}

// elapsed rounds a duration as the progress lines show it: milliseconds
// under a second, tenths above.
func elapsed(start time.Time) time.Duration {
	d := time.Since(start)
	if d < time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(100 * time.Millisecond)
}
