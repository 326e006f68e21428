package command

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/apply"
	"github.com/rdmaform/rdmaform/command/arguments"
	"github.com/rdmaform/rdmaform/command/views"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/planner/render"
	"github.com/rdmaform/rdmaform/state"
	"github.com/rdmaform/rdmaform/tui/termsafe"
	"golang.org/x/sys/unix"
)

func init() {
	register(command{Name: "plan", Synopsis: "Show the changes apply would make", Run: runPlan})
}

const planHelp = `Usage: rdmaform [global options] plan [options]

  Compares the configuration with the state and the live fabric (read from
  the agent) and shows the changes apply would make.

Options:
  -out=FILE            Save the plan; "rdmaform apply FILE" carries out exactly
                       these changes, if the state has not changed since.
  -generate-config-out=FILE
                       Write the blocks of import blocks' targets that the
                       configuration lacks into FILE, a new NAME.rdma.hcl in
                       this directory, from the objects the agent holds;
                       the plan then uses them.
  -var 'name=value'    Set a variable (repeatable).
  -var-file=FILE       Load variable values from a file (repeatable).
  -target=ADDRESS      Limit the plan to this object and what it depends on
                       (repeatable; endpoint.client names every instance).
  -replace=ADDRESS     Replace this object even if it has not changed
                       (repeatable).
  -destroy             Plan to destroy every object in the state.
  -refresh-only        Plan only to record in the state what changed outside
                       rdmaform (objects the agent no longer holds).
  -refresh=false       Do not read the live fabric; trust the state.
  -detailed-exitcode   Exit 0 when there are no changes, 1 on error, 2 when
                       there are changes.
  -json                Print Terraform's machine-readable UI, one JSON
                       message per line (show -json FILE prints a saved
                       plan as one JSON document).
  -no-color            Do not colour the output.
  -compact-warnings    Show warnings as a list of summaries.
  -input=false         Do not ask, on a terminal, for the value of a
                       variable that has none (an error instead).
  -lock=false          Do not lock the state.
  -lock-timeout=DUR    Retry a held state lock for this long.
  -parallelism=N       Accepted for Terraform compatibility; plan makes one
                       round trip to the agent.
`

// fabricConn is the live fabric, as plan and apply use it.
type fabricConn struct {
	Refresher planner.Refresher
	Devices   planner.DeviceInfo // nil: device checks are skipped
	// DevicesOf, when set, gives each agent's devices (see fabricSet).
	DevicesOf func(agent string) planner.DeviceInfo
	Fabric    apply.Fabric
	Close     func() error
	// CreateBeforeDestroy: the fabric can hold a replacement beside the
	// object it replaces (the agent can, under another name).
	CreateBeforeDestroy bool
	// Agent identifies the agent serving (nil: the fabric has no such
	// identity), so that apply of a saved plan can tell that the agent
	// it was made against is gone.
	Agent func(context.Context) (planner.AgentIdentity, error)
	// StopStarted stops the local agent this connection started, if it
	// holds nothing, and says what it did; nil when the agent was already
	// running. A failed command calls it (session.close), so that it
	// leaves no process behind it.
	StopStarted func() string
	// Objects lists every object the local agent holds, of every
	// namespace, with their facts (nil: not known), for the warnings of
	// what a plan cuts (see cutWarnings).
	Objects listObjects
}

// agentSocket is the configuration's agent socket setting, or "".
func (se *session) agentSocket() string {
	if se.cfg != nil && se.cfg.Settings != nil && se.cfg.Settings.Agent != nil {
		return se.cfg.Settings.Agent.Socket
	}
	return ""
}

// agentNamespace is the configuration's agent namespace setting, or "".
func (se *session) agentNamespace() string {
	if se.cfg == nil {
		return ""
	}
	return se.cfg.AgentNamespace()
}

// errNoAgent explains why plan and apply cannot reach the fabric.
const errNoAgent = "This build of rdmaform has no connection from plan and apply to the agent, so it cannot read or change the live fabric."

// session is what plan, apply and destroy hold while they run: the
// configuration, the locked state and, when refreshing, the fabric.
type session struct {
	s      Meta
	loader *config.Loader
	cfg    *config.Config
	m      state.Full
	unlock func()
	prior  *state.State
	conn   *fabricConn
	priors *planner.Priors // prior's objects decoded for the planner
	fetch  *liveFetch      // the agent's objects, read while the state loads
	early  *earlyDials     // remote agents reached while the configuration loads
	color  bool
	// compactWarnings writes warnings as one line each (-compact-warnings).
	compactWarnings bool
	inputs          planner.Inputs
	// written are the diagnostics written so far, so that apply does not
	// repeat the plan's check warnings when it evaluates them again.
	written map[string]bool
	// holdSlots: apply's operations hold their -parallelism slot until
	// they complete (see apply.Options.HoldSlots).
	holdSlots bool
	// trace is apply's or destroy's phase trace (nil in plan).
	trace *phaseTrace
	// view is how the session's command prints (human, or -json's
	// machine-readable UI), chosen once when the session opens.
	view views.Operation
	// intr stops the command on an interrupt (see interrupts).
	intr *interrupts
	// planText is apply -auto-approve's plan, rendered while the walk
	// starts; nil when it was written before.
	planText *planText
}

// diagKey identifies a diagnostic by what it says and where.
func diagKey(d *hcl.Diagnostic) string {
	k := d.Summary + "\x00" + d.Detail
	if d.Subject != nil {
		k += "\x00" + d.Subject.String()
	}
	return k
}

// writeNewDiags writes the diagnostics not written before.
func (se *session) writeNewDiags(diags hcl.Diagnostics) {
	var fresh hcl.Diagnostics
	for _, d := range diags {
		if !se.written[diagKey(d)] {
			fresh = append(fresh, d)
		}
	}
	se.writeDiags(fresh)
}

// close ends the session of a command that exits with code: one that
// failed (1) stops the agent it started, unless that agent holds objects.
func (se *session) close(code int) {
	se.planText.writeTo(se.s.Out)
	if se.fetch != nil {
		// Not waited for when the state failed: say if it started an agent.
		se.fetch.wait(se.s.Err)
	}
	if code == 1 {
		se.stopStartedAgent()
	}
	if se.fetch != nil {
		if c := se.fetch.conn; c != nil && c != se.conn && c.Close != nil {
			c.Close()
		}
	}
	if se.conn != nil && se.conn.Close != nil {
		se.conn.Close()
	}
	if se.unlock != nil {
		se.unlock()
	}
	if se.m != nil {
		se.m.Close()
	}
	if se.intr != nil {
		se.intr.stop()
	}
}

// stopStartedAgent stops the agent the session's connections started, if
// any, and says so.
func (se *session) stopStartedAgent() {
	for _, c := range []*fabricConn{se.conn, se.fetch.connection()} {
		if c != nil && c.StopStarted != nil {
			fmt.Fprintln(se.s.Err, c.StopStarted())
			return // the one local agent, through either connection
		}
	}
}

// writeDiags writes diagnostics through the session's view, and notes
// that they were written.
func (se *session) writeDiags(diags hcl.Diagnostics) {
	if len(diags) == 0 {
		return
	}
	if se.written == nil {
		se.written = map[string]bool{}
	}
	for _, d := range diags {
		se.written[diagKey(d)] = true
	}
	se.view.Diagnostics(diags)
}

// writeCompactWarnings lists warnings by summary and place, as Terraform's
// -compact-warnings does.
func writeCompactWarnings(w io.Writer, warnings hcl.Diagnostics) {
	if len(warnings) == 0 {
		return
	}
	fmt.Fprintf(w, "\nWarnings:\n\n")
	for _, d := range warnings {
		fmt.Fprintf(w, "- %s\n", termsafe.String(d.Summary))
		if d.Subject != nil {
			fmt.Fprintf(w, "  on %s:%d:%d\n", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column)
		}
	}
	fmt.Fprintf(w, "\nTo see the full warning notes, run rdmaform without -compact-warnings.\n")
}

// openSession loads the configuration with vars, opens and locks the
// state for operation, and connects to the fabric when needFabric.
//
// The state is opened, read and decoded for the planner while the
// configuration loads: with thousands of objects each is a good part of a
// plan's time, and neither needs the other. Configuration errors come
// first, as if the state had not been touched.
func openSession(s Meta, vars config.VarArgs, env []string, lock lockFlags, operation string, opts sessionOptions, needFabric bool) (*session, bool) {
	return openSessionFetching(s, vars, env, lock, operation, opts, needFabric, false)
}

// sessionOptions are how a session writes what it has to say, and what
// its configuration checks.
type sessionOptions struct {
	color           bool
	compactWarnings bool
	// skipPreconditions: a destroy or refresh-only plan does not check
	// the blocks' preconditions, as Terraform's.
	skipPreconditions bool
	// ui: diagnostics go to plan's or apply's -json machine-readable
	// output.
	ui *jsonUI
	// input: a variable without a value is asked for on the terminal, as
	// Terraform does (not with -input=false).
	input bool
	// targets limits the agents reached to those of the targeted objects
	// (see agentsNeeded); with destroy, what depends on them too.
	targets []addrs.Instance
	destroy bool
	// planTimestamp is plantimestamp(): a saved plan's time at its apply
	// (zero: now).
	planTimestamp time.Time
}

// openSessionFetching is openSession that, with fetchLive, also connects
// to the agent and lists its objects once the configuration (which names
// the agent's socket) has loaded, while the state is still being read:
// plan's refresh then costs little more than the longer of the two.
func openSessionFetching(s Meta, vars config.VarArgs, env []string, lock lockFlags, operation string, opts sessionOptions, needFabric, fetchLive bool) (*session, bool) {
	se := &session{s: s, loader: newConfigLoader(s.startDir), color: opts.color, compactWarnings: opts.compactWarnings, intr: watchInterrupts(s.Err, s.exit)}
	se.view = &humanOperation{se: se}
	if opts.ui != nil {
		se.view = opts.ui
	}
	se.view.SetLoader(se.loader)
	se.loader.SkipPreconditions = opts.skipPreconditions
	se.loader.CoreVersion = Version
	se.loader.PlanTimestamp = opts.planTimestamp
	if opts.input && s.stdinIsTerminal() {
		se.loader.Ask = askVariable(s, se.intr.Done())
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-se.intr.Done(): // stop waiting for a held lock
			cancel()
		case <-ctx.Done():
		}
	}()
	// The agent is dialled while the state is read, but one is started
	// only once the state says this host may act on it.
	agentStart := newStartGate()
	defer agentStart.open(false)
	var stateErrs bytes.Buffer
	stateDone, stateRead := make(chan bool, 1), make(chan struct{})
	stateMeta := s
	stateMeta.Err = &stateErrs
	go func() {
		ok := se.openState(ctx, lock, operation, stateMeta)
		// The agents the state names are known now: connecting to them
		// (a fabric of remote agents waits for this) goes on while the
		// objects are decoded.
		close(stateRead)
		if ok {
			se.priors = planner.DecodePriors(se.prior)
		}
		stateDone <- ok
	}()
	if fetchLive && len(opts.targets) == 0 { // with targets, only some agents are reached
		se.early = newEarlyDials(s.remoteConnector())
		se.loader.AgentsEvaluated = se.early.start
	}
	cfg, diags := se.loader.Load(".", config.VarInputs{Args: vars, Env: env})
	se.loader.AgentsEvaluated = nil
	if s.configHook != nil && cfg != nil {
		s.configHook(cfg)
	}
	if diags.HasErrors() {
		cancel() // a held lock is not worth waiting for
		se.early.close()
	} else if fetchLive {
		se.cfg = cfg
		connect := s.connector()
		se.fetch = startLiveFetch(func(notify io.Writer, mayStart func() bool) (*fabricConn, error) {
			defer se.early.close()
			return se.connectFabric(cfg, connect, notify, mayStart, opts, stateRead)
		}, agentStart.mayStart)
	}
	stateOK := <-stateDone
	cancel()
	se.writeDiags(diags)
	if diags.HasErrors() {
		return se, false
	}
	se.cfg = cfg
	se.inputs = planner.Inputs{ConfigDigest: configDigest(se.loader), Env: env}
	if ws := se.loader.Workspace; ws != config.DefaultWorkspace {
		se.inputs.Workspace = ws
	}
	for _, v := range append(vars[:len(vars):len(vars)], se.loader.Asked...) {
		se.inputs.Vars = append(se.inputs.Vars, planner.VarInput{File: v.File, Value: v.Value})
	}
	s.Err.Write(stateErrs.Bytes()) // the errors, or the backend's warnings
	if !stateOK {
		return se, false
	}
	if (needFabric || fetchLive) && !stateOnThisHost(se.prior, s) {
		return se, false
	}
	agentStart.open(true)
	if !needFabric {
		return se, true
	}
	connect := s.connector()
	if connect == nil {
		s.showError("The rdmaform agent is not available", errNoAgent)
		return se, false
	}
	conn, err := se.connectFabric(se.cfg, connect, s.Err, nil, opts, nil)
	if err != nil {
		s.showError("Cannot reach the rdmaform agent", err.Error())
		return se, false
	}
	se.conn = conn
	return se, true
}

// openState opens the state backend, locks it for operation and reads the
// state; failures are reported through errs.
func (se *session) openState(ctx context.Context, lock lockFlags, operation string, errs Meta) bool {
	m, ok := openStateManager(".", errs)
	if !ok {
		return false
	}
	se.m = m
	unlock, ok := lock.acquireCtx(ctx, m, operation, errs, se.s.Err)
	if !ok {
		return false
	}
	se.unlock = unlock
	if !refreshState(m, errs) {
		return false
	}
	se.prior = m.State()
	return true
}

// liveFetch is a connection to the agent and its list of objects, made in
// the background.
type liveFetch struct {
	done    chan struct{}
	notify  bytes.Buffer // what connecting said (an agent started)
	conn    *fabricConn
	connErr error
	live    map[string]planner.LiveObject
	liveErr error
	// facts and listeners are the connection's own readers, if it has
	// them (the connection's Refresher becomes this fetch).
	facts     planner.FactsReader
	listeners planner.ListenerReader
	scope     planner.AgentScope
}

func startLiveFetch(connect func(notify io.Writer, mayStart func() bool) (*fabricConn, error), mayStart func() bool) *liveFetch {
	f := &liveFetch{done: make(chan struct{})}
	go func() {
		defer close(f.done)
		f.conn, f.connErr = connect(&f.notify, mayStart)
		if f.connErr == nil {
			f.facts, _ = f.conn.Refresher.(planner.FactsReader)
			f.listeners, _ = f.conn.Refresher.(planner.ListenerReader)
			f.scope, _ = f.conn.Refresher.(planner.AgentScope)
			f.live, f.liveErr = f.conn.Refresher.Live(context.Background())
		}
	}()
	return f
}

// wait returns the connection once made, having written what connecting
// said to notify.
func (f *liveFetch) wait(notify io.Writer) (*fabricConn, error) {
	<-f.done
	notify.Write(f.notify.Bytes())
	f.notify.Reset()
	return f.conn, f.connErr
}

// connection is the connection once made, or nil (also for a nil fetch).
func (f *liveFetch) connection() *fabricConn {
	if f == nil {
		return nil
	}
	<-f.done
	return f.conn
}

// Live answers the planner's refresh with the list already fetched.
func (f *liveFetch) Live(ctx context.Context) (map[string]planner.LiveObject, error) {
	select {
	case <-f.done:
		return f.live, f.liveErr
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Facts reads the facts of some objects from the agent, when its
// connection can (see planner.FactsReader).
func (f *liveFetch) Facts(ctx context.Context, handles []string) (map[string]state.Facts, error) {
	select {
	case <-f.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if f.facts == nil {
		return map[string]state.Facts{}, nil
	}
	return f.facts.Facts(ctx, handles)
}

// Listeners lists the agent's listeners, when its connection can (see
// planner.ListenerReader).
func (f *liveFetch) Listeners(ctx context.Context) ([]planner.LiveListener, error) {
	select {
	case <-f.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if f.listeners == nil {
		return nil, nil
	}
	return f.listeners.Listeners(ctx)
}

// rdmaVarEnv returns the RDMAFORM_VAR_* entries of the environment, which
// a saved plan records so that apply evaluates the same values.
func rdmaVarEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, config.EnvPrefix) {
			out = append(out, kv)
		}
	}
	sort.Strings(out)
	return out
}

// configDigest is a digest of every file the loader read (configuration
// and variable files), so that apply of a saved plan can tell whether the
// configuration changed since the plan.
func configDigest(l *config.Loader) string {
	files := l.Files()
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.ToSlash(n), len(files[n].Bytes))
		h.Write(files[n].Bytes)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// makePlan plans with the session and the flags, writing the diagnostics;
// ok is false when planning failed.
func (se *session) makePlan(op *arguments.Operation) (*planner.Plan, hcl.Diagnostics, bool) {
	opts := planner.Options{Targets: op.Targets, Replace: op.Replace, Destroy: op.Destroy, RefreshOnly: op.RefreshOnly, Priors: se.priors, ForImport: op.ForImport}
	if se.conn != nil && op.Refresh {
		opts.Refresher = se.conn.Refresher
		opts.Devices = se.conn.devicesFor()
	}
	opts.NoCreateBeforeDestroy = se.conn != nil && !se.conn.CreateBeforeDestroy
	p, diags := planner.Make(context.Background(), se.cfg, se.prior, opts)
	if !diags.HasErrors() {
		diags = append(diags, se.cutWarnings(p)...)
		diags = append(diags, se.restartWarnings(p)...)
	}
	return p, diags, !diags.HasErrors()
}

func runPlan(args []string, s Meta) (code int) {
	s = s.withJSON(args)
	defer startProfile("plan")()
	a, diags := arguments.ParsePlan(args)
	if a.Help {
		fmt.Fprint(s.Err, planHelp)
		return 0
	}
	if diags.HasErrors() {
		s.argDiagnostics(diags, "")
		return 1
	}
	color := !a.View.NoColor && !a.View.JSON && cfgIsTerminal(s.Out)
	if a.GenerateConfigOut != "" && !generateImportConfig(s, a) {
		return 1
	}
	needFabric := a.Operation.Refresh
	// -json streams Terraform's machine-readable UI, as apply -json does
	// (show -json FILE gives the plan as one document).
	var ui *jsonUI
	if a.View.JSON {
		ui = newJSONUI(s)
		ui.version()
	}
	se, ok := openSessionFetching(s, a.Vars.Args, rdmaVarEnv(), lockOf(a.State), "OperationTypePlan", sessionOptions{color: color, compactWarnings: a.View.CompactWarnings, skipPreconditions: a.Operation.Destroy || a.Operation.RefreshOnly, ui: ui, input: a.Input && ui == nil, targets: a.Operation.Targets, destroy: a.Operation.Destroy}, false, needFabric && s.connector() != nil)
	defer func() { se.close(code) }()
	if !ok {
		return 1
	}
	if needFabric {
		if s.connector() == nil {
			if se.prior != nil && len(se.prior.Objects) > 0 {
				s.showError("The rdmaform agent is not available", fmt.Sprintf("%s\nThe state records %d objects whose live status cannot be read. Run \"rdmaform plan -refresh=false\" to plan against the state as recorded.", errNoAgent, len(se.prior.Objects)))
				return 1
			}
			// Nothing to refresh: an empty state needs no live read. Say
			// so, since device checks are skipped too.
			if !a.View.JSON {
				fmt.Fprintf(s.Out, "Note: the agent is not available in this build; the state is empty, so the\nplan is made without reading the live fabric and without device checks.\n")
			}
		} else {
			conn, err := se.fetch.wait(s.Err)
			if err != nil {
				s.showError("Cannot reach the rdmaform agent", fmt.Sprintf("%s\n\nRun \"rdmaform plan -refresh=false\" to plan against the state as recorded.", termsafe.Text(err.Error())))
				return 1
			}
			conn.Refresher = se.fetch
			se.conn = conn
		}
	}
	p, diags, ok := se.makePlan(&a.Operation)
	se.writeDiags(diags)
	if !ok || se.intr.interrupted() {
		return 1
	}
	se.view.Plan(p)
	se.view.PlannedOutputs(p)
	if se.intr.interrupted() {
		return 1 // stopped by the user: save no plan
	}
	if a.OutPath != "" {
		if p.Refreshed && se.conn != nil && se.conn.Agent != nil {
			id, err := se.conn.Agent(context.Background())
			if err != nil {
				s.showError("Asking the agent who it is, for the plan file", err.Error())
				return 1
			}
			se.inputs.Agent = &id
		}
		if err := writePlanFile(a.OutPath, &planner.SavedPlan{Plan: p, Inputs: se.inputs, RdmaformVersion: Version}); err != nil {
			s.showError("Failed to write the plan file", err.Error())
			return 1
		}
		if !a.View.JSON {
			fmt.Fprintf(s.Out, "\n%s\n\nSaved the plan to: %s\n\nTo perform exactly these actions, run the following command to apply:\n    rdmaform apply %q\n", strings.Repeat("─", 77), a.OutPath, a.OutPath)
		}
	} else if !a.View.JSON && p.HasChanges() {
		fmt.Fprintf(s.Out, "\n%s\n\nNote: You didn't use the -out option to save this plan, so rdmaform can't\nguarantee to take exactly these actions if you run \"rdmaform apply\" now.\n", strings.Repeat("─", 77))
	}
	if a.DetailedExitCode && p.HasChanges() {
		return 2
	}
	return 0
}

// writePlanFile writes a saved plan through a temporary file renamed into
// place, so that a reader never sees half a plan.
func writePlanFile(path string, sp *planner.SavedPlan) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := planner.WritePlanFile(tmp, sp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// readPlanFile reads a saved plan.
func readPlanFile(path string) (*planner.SavedPlan, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if !planner.IsPlanFile(data) {
		return nil, fmt.Errorf("%s is not a saved plan (make one with \"rdmaform plan -out=%s\")", path, path)
	}
	return planner.ReadPlanFile(data)
}

// showPlanFile prints a saved plan for show, as plan printed it.
func showPlanFile(s Meta, sp *planner.SavedPlan, jsonOut, color bool) int {
	if jsonOut {
		doc := render.JSONDocument(sp.Plan, nil)
		doc.TerraformVersion = Version
		if st := currentPrior(sp.Plan); st != nil {
			doc.PriorState = stateJSON(st)
		}
		// The configuration here, which apply of the plan requires to be
		// the plan's (the plan file holds its digest, not its text).
		if cfg := showConfig(s); cfg != nil {
			doc.Configuration = cfg.JSONConfiguration()
			doc.RelevantAttributes = planner.RelevantAttributes(cfg, sp.Plan)
			if checks := checksJSON(cfg, plannedValueOf(sp.Plan)); len(checks) > 0 {
				doc.Checks = checks
			}
		}
		if err := render.WriteJSON(s.Out, doc); err != nil {
			s.showErrorText(err.Error())
			return 1
		}
		return 0
	}
	render.Human(s.Out, sp.Plan, color && cfgIsTerminal(s.Out))
	return 0
}

// currentPrior is the state p was made from, when the state here is
// still that one (its lineage and serial), as apply of the plan requires;
// nil otherwise, and when the state cannot be read.
func currentPrior(p *planner.Plan) *state.State {
	if !p.Prior.Exists {
		return nil
	}
	m, ok := openStateManager(".", Meta{Err: io.Discard})
	if !ok {
		return nil
	}
	defer m.Close()
	if !refreshState(m, Meta{Err: io.Discard}) {
		return nil
	}
	if st := m.State(); st != nil && st.Lineage == p.Prior.Lineage && st.Serial == p.Prior.Serial {
		return st
	}
	return nil
}

// withoutEcho turns the terminal's echo off while a secret is typed, if r
// is a terminal, and returns how to turn it back on.
func withoutEcho(r io.Reader) (restore func()) {
	f, ok := r.(*os.File)
	if !ok {
		return func() {}
	}
	fd := int(f.Fd())
	was, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return func() {}
	}
	quiet := *was
	quiet.Lflag &^= unix.ECHO
	if unix.IoctlSetTermios(fd, unix.TCSETS, &quiet) != nil {
		return func() {}
	}
	return func() { unix.IoctlSetTermios(fd, unix.TCSETS, was) }
}

// askVariable asks on the terminal for a variable's value, as Terraform
// does: its name, its description, "Enter a value:". It reads standard
// input a byte at a time, so that nothing after the line is taken from
// the confirmation that may follow.
func askVariable(s Meta, interrupted <-chan struct{}) func(name, description string, sensitive bool) (string, bool) {
	return func(name, description string, sensitive bool) (string, bool) {
		select {
		case <-interrupted:
			return "", false
		default:
		}
		fmt.Fprintf(s.Out, "var.%s\n", name)
		if description != "" {
			fmt.Fprintf(s.Out, "  %s\n\n", description)
		}
		fmt.Fprint(s.Out, "  Enter a value: ")
		if sensitive {
			// As Terraform's prompt: what is typed is not shown.
			defer withoutEcho(s.In)()
		}
		type answer struct {
			line string
			ok   bool
		}
		answered := make(chan answer, 1)
		go func() {
			var line []byte
			b := make([]byte, 1)
			for {
				n, err := s.In.Read(b)
				if n == 1 && b[0] != '\n' {
					line = append(line, b[0])
					continue
				}
				if n == 1 || err != nil {
					answered <- answer{strings.TrimSuffix(string(line), "\r"), n == 1 || len(line) > 0}
					return
				}
			}
		}()
		select {
		case a := <-answered:
			fmt.Fprintln(s.Out)
			return a.line, a.ok
		case <-interrupted: // the read is left to end with the process
			fmt.Fprintln(s.Out)
			return "", false
		}
	}
}
