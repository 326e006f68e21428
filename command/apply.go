package command

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/rdmaform/rdmaform/apply"
	"github.com/rdmaform/rdmaform/apply/agent/client"
	"github.com/rdmaform/rdmaform/command/arguments"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/state"
	"github.com/rdmaform/rdmaform/tui/colorize"
	"github.com/rdmaform/rdmaform/tui/termsafe"
	"golang.org/x/sys/unix"
)

func init() {
	register(command{Name: "apply", Synopsis: "Create or update the fabric to match the configuration", Run: runApply})
}

const applyHelp = `Usage: rdmaform [global options] apply [options] [PLAN]

  Makes the fabric match the configuration: plans, asks for confirmation,
  then creates, updates and destroys objects through the agent, recording
  each completed change in the state.

  With PLAN, a file saved by "rdmaform plan -out=PLAN", carries out exactly
  that plan without asking, if the state has not changed since and the
  configuration and variable files are as they were (unlike Terraform,
  which applies a saved plan whatever the files say now).

Options:
  -auto-approve        Do not ask for confirmation.
  -json                Print Terraform's machine-readable UI: one JSON message
                       per line (planned changes, each change's start and
                       end, the summary, the outputs); needs -auto-approve
                       or a saved plan.
  -input=false         Never ask: without -auto-approve, apply refuses a plan
                       that changes anything.
  -destroy             Destroy every object in the state ("rdmaform destroy").
  -refresh-only        Only record in the state what changed outside rdmaform
                       (objects the agent no longer holds); change no object.
  -monitor             Watch the objects change in the monitor while apply
                       runs (q leaves it; apply's own report follows).
                       Skipped, with a note, when standard output is not a
                       terminal.
  -var 'name=value'    Set a variable (repeatable).
  -var-file=FILE       Load variable values from a file (repeatable).
  -target=ADDRESS      Limit the changes to this object and its dependencies.
  -replace=ADDRESS     Replace this object even if it has not changed.
  -refresh=false       Do not read the live fabric before planning.
  -parallelism=N       At most N objects made or removed at once, each
                       holding its slot until its connect or disconnect
                       completes. Without it, at most 10 requests to the
                       agent are in flight, and connects do not wait for
                       each other to complete (the agent paces them).
  -no-color            Do not colour the output.
  -compact-warnings    Show warnings as a list of summaries.
  -lock=false          Do not lock the state.
  -lock-timeout=DUR    Retry a held state lock for this long.
`

// isTerminal reports whether f is a terminal: /dev/null is a character
// device too, but answers no terminal ioctl.
func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

func runApply(args []string, s Meta) int {
	s = s.withJSON(args)
	a, diags := arguments.ParseApply(args)
	return runApplyOrDestroy(a, diags, s)
}

// runApplyOrDestroy runs apply, destroy or refresh (a.Name, for messages),
// which refresh's options make of apply.
func runApplyOrDestroy(a *arguments.Apply, diags arguments.Diagnostics, s Meta) (code int) {
	if a.Help {
		fmt.Fprint(s.Err, map[string]string{"apply": applyHelp, "destroy": destroyHelp, "refresh": refreshHelp}[a.Name])
		return 0
	}
	if diags.HasErrors() {
		s.argDiagnostics(diags, "")
		return 1
	}
	name, destroy, monitor := a.Name, a.Operation.Destroy, a.Monitor
	defer startProfile(name)()
	trace := newPhaseTrace(name)
	defer trace.close()
	color := !a.View.NoColor && !a.View.JSON && cfgIsTerminal(s.Out)
	var ui *jsonUI
	if a.View.JSON {
		ui = newJSONUI(s)
		ui.version()
	}
	if monitor && !s.stdoutIsTerminal() {
		// Drawn into a file, the monitor would leave the terminal blank
		// and wait for a q nobody knows to press.
		fmt.Fprintf(s.Err, "Note: -monitor is skipped: standard output is not a terminal.\n")
		monitor = false
	}
	if monitor && os.Getenv("TERM") == "dumb" {
		// Its cursor controls would be garbage there (see runMonitor).
		fmt.Fprintf(s.Err, "Note: -monitor is skipped: the terminal is dumb (TERM=dumb).\n")
		monitor = false
	}
	if monitor && !s.stdinIsTerminal() {
		s.showError("-monitor needs a terminal", fmt.Sprintf("Run \"rdmaform monitor\" in a terminal instead, while %s runs elsewhere.", name))
		return 1
	}
	if a.PlanPath != "" {
		return applySavedPlan(a.PlanPath, a, color, s, monitor, ui, trace)
	}
	run := execute
	if monitor {
		run = func(se *session, p *planner.Plan, parallelism int, destroy, color bool) int {
			return executeWithMonitor(se, p, parallelism, destroy, color, a.View.NoColor)
		}
	}
	// Apply needs the fabric to act, whether or not it refreshes.
	se, ok := openSession(s, a.Vars.Args, rdmaVarEnv(), lockOf(a.State), "OperationTypeApply", sessionOptions{color: color, compactWarnings: a.View.CompactWarnings, skipPreconditions: a.Operation.Destroy || a.Operation.RefreshOnly, ui: ui, input: a.Input && ui == nil, targets: a.Operation.Targets, destroy: a.Operation.Destroy}, true)
	defer func() { se.close(code) }()
	se.holdSlots = a.Operation.ParallelismSet
	se.trace = trace
	if !ok {
		return 1
	}
	trace.mark("session open (configuration, state, lock, agent)")
	if se.intr.interrupted() {
		return 1
	}
	p, diags, ok := se.makePlan(&a.Operation)
	se.writeDiags(diags)
	if !ok || se.intr.interrupted() {
		return 1
	}
	trace.mark("planned")
	switch {
	case a.AutoApprove && !monitor && p.HasChanges() && !a.View.JSON:
		se.planText = renderPlanText(p, color)
	default:
		se.view.Plan(p)
	}
	trace.mark("plan printed")
	if se.intr.interrupted() {
		se.planText.writeTo(s.Out)
		return 1
	}
	if !p.HasChanges() && !p.RefreshesFacts() {
		se.view.Summary(destroy, &apply.Report{})
		return 0
	}
	if !approveRestartLoss(se, a, p) {
		return 1
	}
	// Facts refreshed, and nothing else, are recorded without a question,
	// as Terraform's apply saves its refreshed state; only a plan that
	// changes something needs approval, and only then a terminal.
	needsApproval := p.HasChanges() && !a.AutoApprove
	if needsApproval && !a.Input {
		fmt.Fprint(s.Err, "\n")
		s.showError("No confirmation with -input=false", fmt.Sprintf("-input=false forbids asking whether to %s, so rdmaform will not %s. Add\n-auto-approve to %s without asking, or apply a plan saved with\n\"rdmaform plan -out=FILE\".", name, name, name))
		return 1
	}
	if needsApproval && !s.stdinIsTerminal() {
		fmt.Fprint(s.Err, "\n")
		s.showError(fmt.Sprintf("No terminal to confirm the %s", name), fmt.Sprintf("rdmaform %s asks for confirmation on a terminal, and standard input is not\none. Run it with -auto-approve to %s without asking, or save a plan with\n\"rdmaform plan -out=FILE\" and apply that file.", name, name))
		return 1
	}
	if needsApproval && !confirm(s, destroy, p.RefreshOnly, se.intr) {
		fmt.Fprintf(s.Out, "\n%s cancelled.\n", strings.ToUpper(name[:1])+name[1:])
		return 1
	}
	return run(se, p, a.Operation.Parallelism, destroy, color)
}

// confirm asks Terraform's question and reports whether the answer is
// exactly "yes".
func confirm(s Meta, destroy, refreshOnly bool, intr *interrupts) bool {
	// Ctrl-C at the question is a "no": the caller says the apply is
	// cancelled and releases the lock, rather than dying of the signal.
	intr.setNotice(func() {})
	switch {
	case refreshOnly:
		fmt.Fprint(s.Out, "\nWould you like to update the rdmaform state to reflect these detected changes?\n"+
			"  rdmaform will write these changes to the state without modifying any live\n  objects.\n"+
			"  There is no undo. Only 'yes' will be accepted to confirm.\n\n  Enter a value: ")
	case destroy:
		fmt.Fprint(s.Out, "\nDo you really want to destroy all resources?\n"+
			"  rdmaform will destroy all your managed objects, as shown above.\n"+
			"  There is no undo. Only 'yes' will be accepted to confirm.\n\n  Enter a value: ")
	default:
		fmt.Fprint(s.Out, "\nDo you want to perform these actions?\n"+
			"  rdmaform will perform the actions described above.\n"+
			"  Only 'yes' will be accepted to approve.\n\n  Enter a value: ")
	}
	return answeredYes(s, intr)
}

// answeredYes reads the answer to a question just asked: whether the
// line typed is exactly "yes". Ctrl-C while it waits is a "no".
func answeredYes(s Meta, intr *interrupts) bool {
	answer := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(s.In).ReadString('\n')
		answer <- line
	}()
	var line string
	select {
	case line = <-answer:
	case <-intr.Done():
	}
	fmt.Fprintln(s.Out)
	return strings.TrimSpace(line) == "yes"
}

// applySavedPlan carries out a plan saved by plan -out, refusing when the
// state or the configuration changed since.
func applySavedPlan(path string, a *arguments.Apply, color bool, s Meta, monitor bool, ui *jsonUI, trace *phaseTrace) (code int) {
	sp, err := readPlanFile(path)
	if err != nil {
		s.showError("Failed to read the saved plan", err.Error())
		return 1
	}
	if sp.RdmaformVersion != Version {
		// As Terraform: a plan is only applied by the version that made it.
		s.showError("Saved plan is for a different rdmaform version", fmt.Sprintf("The given plan file was created by rdmaform %s, but this is rdmaform %s. Plan\nagain with this version.", sp.RdmaformVersion, Version))
		return 1
	}
	planned := sp.Inputs.Workspace
	if planned == "" {
		planned = config.DefaultWorkspace
	}
	if ws := workspaceOrDefault("."); ws != planned {
		s.showError("Saved plan is for another workspace", fmt.Sprintf("%s was made in workspace %q, but the selected workspace is %q. Select %q\n(\"rdmaform workspace select %s\") or make a new plan.", path, planned, ws, planned, planned))
		return 1
	}
	var vars config.VarArgs
	for _, v := range sp.Inputs.Vars {
		vars = append(vars, config.VarArg{File: v.File, Value: v.Value})
	}
	se, ok := openSession(s, vars, sp.Inputs.Env, lockOf(a.State), "OperationTypeApply", sessionOptions{color: color, compactWarnings: a.View.CompactWarnings, skipPreconditions: a.Operation.Destroy || a.Operation.RefreshOnly, ui: ui, planTimestamp: sp.Plan.Created}, false)
	defer func() { se.close(code) }()
	se.holdSlots = a.Operation.ParallelismSet
	se.trace = trace
	if !ok {
		return 1
	}
	if d := configDigest(se.loader); d != sp.Inputs.ConfigDigest {
		s.showError("Saved plan does not match the configuration", fmt.Sprintf("The configuration or variable files changed after %s was made. Make a new plan.", path))
		return 1
	}
	now := planner.StateID{}
	if se.prior != nil {
		now = planner.StateID{Exists: true, Lineage: se.prior.Lineage, Serial: se.prior.Serial}
	}
	if now != sp.Plan.Prior {
		s.showError("Saved plan is stale", fmt.Sprintf("The given plan file can no longer be applied because the state was changed by\nanother operation after the plan was created (planned against %s, now %s).\nMake a new plan.", describeStateID(sp.Plan.Prior), describeStateID(now)))
		return 1
	}
	// A plan made without a refresh (on any host) acts here, on this
	// host's agent: the state's objects must be this host's.
	if !stateOnThisHost(se.prior, s) {
		return 1
	}
	connect := s.connector()
	if connect == nil {
		s.showError("The rdmaform agent is not available", errNoAgent)
		return 1
	}
	conn, err := connectAgents(se.cfg, agentsOfPlan(sp.Plan), func() (*fabricConn, error) {
		return connect(context.Background(), se.agentSocket(), s.Err, nil)
	}, s.remoteConnector())
	if err != nil {
		s.showError("Cannot reach the rdmaform agent", err.Error())
		return 1
	}
	se.conn = conn
	if !sameAgent(s, path, sp.Inputs.Agent, conn, client.ChooseSocket("", se.agentSocket())) {
		return 1
	}
	if monitor {
		return executeWithMonitor(se, sp.Plan, a.Operation.Parallelism, sp.Plan.Destroy, color, a.View.NoColor)
	}
	return execute(se, sp.Plan, a.Operation.Parallelism, sp.Plan.Destroy, color)
}

// sameAgent refuses a saved plan made against another run of the agent
// than the one serving now, as a stale plan: the agent restarted (or a
// new one was started for this apply), so the objects the plan counts on
// as live are gone, and carrying it out would fail on them or leave the
// state recording objects that are not there.
func sameAgent(s Meta, path string, planned *planner.AgentIdentity, conn *fabricConn, socket string) bool {
	if planned == nil || conn.Agent == nil {
		return true
	}
	now, err := conn.Agent(context.Background())
	if err != nil {
		s.showError("Asking the agent who it is", err.Error())
		return false
	}
	if now == *planned {
		return true
	}
	s.showError("Saved plan is stale", fmt.Sprintf("%s was made against the rdmaform agent with pid %d, started %s; the agent at\n%s now is pid %d, started %s. The agent restarted since the\nplan, and the objects it held are gone. Make a new plan.", path, planned.PID, time.Unix(0, planned.StartedAt).Format(time.RFC3339), socket, now.PID, time.Unix(0, now.StartedAt).Format(time.RFC3339)))
	return false
}

func describeStateID(id planner.StateID) string {
	if !id.Exists {
		return "no state"
	}
	return fmt.Sprintf("lineage %s serial %d", id.Lineage, id.Serial)
}

// execute applies p, recording every change durably, then reports as
// Terraform does: errors, what was skipped or not started, the summary and
// the outputs. Ctrl-C stops starting new work.
func execute(se *session, p *planner.Plan, parallelism int, destroy, color bool) int {
	s := se.s
	rec, err := se.m.OpenRecorder()
	// The local journal's fallocate can fail with EINTR when a signal
	// (the Go runtime's preemption) arrives; opening again is harmless.
	for try := 0; try < 5 && errors.Is(err, syscall.EINTR); try++ {
		rec, err = se.m.OpenRecorder()
	}
	if err != nil {
		se.planText.writeTo(s.Out)
		s.showError("Failed to open the state for recording", err.Error())
		return 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	var progressOut io.Writer = s.Out
	events := se.view.Hook()
	if events != nil {
		progressOut = io.Discard // the events say it
	}
	progress := newProgressBuffer(progressOut)
	if se.planText != nil {
		progress.after(se.planText)
	}
	se.intr.setNotice(func() {
		progress.Flush()
		fmt.Fprintln(s.Err, "\nInterrupt received. Stopping: no new operations start; those in flight finish and are recorded\n(endpoints still connecting are dropped).\nInterrupt again to exit at once.")
	})
	var lockLost <-chan struct{}
	if ll, ok := se.m.(state.LockLoser); ok {
		lockLost = ll.LockLost()
	}
	go func() {
		select {
		case <-se.intr.Done():
			cancel()
		case <-lockLost:
			progress.Flush()
			fmt.Fprint(s.Err, "\n")
			s.showError("Lost the state lock", fmt.Sprintf("The lock on %s expired or was removed (etcd did not hear from rdmaform for\nthe lock's lifetime, or force-unlock removed it): another command may now change the\nstate. No new operations start; those in flight finish, but etcd refuses to record\nthem, as it refuses every write of a command that lost the lock.", se.m.Describe()))
			cancel()
		case <-done:
		}
	}()
	se.trace.mark("recorder open")
	report := apply.Apply(ctx, p, apply.Options{
		Fabric: se.conn.Fabric, Recorder: rec, Config: se.cfg, Prior: se.prior,
		Parallelism: parallelism, HoldSlots: se.holdSlots, Progress: se.trace.progress(progress), Events: events, Namespace: se.agentNamespace(),
	})
	progress.Flush()
	se.planText.writeTo(s.Out) // when the walk wrote no line
	se.trace.mark("walk done")
	close(done)
	interrupted := ctx.Err() != nil
	closeErr := rec.Close()
	se.trace.mark("state saved")

	se.view.ApplyErrors(report.Errors)
	for _, n := range report.Skipped {
		fmt.Fprintf(s.Err, "\nNote: %d %s not changed because %s failed: %s\n", len(n.Objects), plural(len(n.Objects), "object was", "objects were"), n.Cause, objectList(n.Objects))
	}
	finish := "rdmaform apply" // what carries out the rest
	if destroy || p.Destroy {
		finish = "rdmaform destroy"
	}
	refused := (*state.LockLostError)(nil) // etcd refused its writes: the lock was lost
	errors.As(closeErr, &refused)
	switch {
	case refused != nil && (interrupted || len(report.NotStarted) > 0 || len(report.Cancelled) > 0):
		fmt.Fprintf(s.Err, "\nStopped: this run lost the state lock, so no further operation was started.%s%s\n",
			listed("Cancelled before they were established (the agent dropped them)", report.Cancelled), listed("Not started", report.NotStarted))
	case report.StateFailed != nil && len(report.NotStarted) > 0:
		fmt.Fprintf(s.Err, "\nStopped: the state could not record a change, so no further operation was started:\neach would have made what the state cannot hold. Not started (%d): %s\nRun %q again once the state's backend answers.\n", len(report.NotStarted), objectList(report.NotStarted), finish)
	case report.FabricGone != nil && se.writeGoneAgents(report, finish):
	case report.FabricGone != nil && len(report.NotStarted) > 0:
		fmt.Fprintf(s.Err, "\nStopped: the agent is gone, so no further operation was started. The state records\neverything that completed. Not started (%d): %s\nRun %q again to finish.\n", len(report.NotStarted), objectList(report.NotStarted), finish)
	case len(report.NotStarted) > 0 || len(report.Cancelled) > 0:
		fmt.Fprintf(s.Err, "\nInterrupted: the state records everything that completed.%s%s\nRun %q again to finish.\n",
			listed("Cancelled before they were established (the agent dropped them)", report.Cancelled), listed("Not started", report.NotStarted), finish)
	case interrupted:
		fmt.Fprintf(s.Err, "\nInterrupted after every operation had started: those that completed are recorded in the state.\n")
	}
	if refused != nil {
		fmt.Fprint(s.Err, "\n")
		s.showError("Failed to save the state", closeErr.Error()+"\n\n"+strings.TrimSuffix(lostLockNote, "\n"))
	} else if closeErr != nil {
		fmt.Fprint(s.Err, "\n")
		s.showError("Failed to save the state", fmt.Sprintf("%v\n\nThe changes recorded so far are in the state's journal, which the next command\nreplays.", closeErr))
	}
	if len(report.UnknownOutputs) > 0 {
		fmt.Fprint(s.Err, "\n")
		s.showWarning(fmt.Sprintf("Outputs not recorded: %s", strings.Join(report.UnknownOutputs, ", ")), "Their values use attributes known only after apply through a local value,\nwhich apply does not evaluate again; use the attribute in the output itself.")
	}
	if report.Failed() || closeErr != nil {
		fmt.Fprintf(s.Err, "\n%s\n", failedLine(destroy, report))
		return 1
	}
	se.writeNewDiags(report.Checks)
	if len(p.Targets) > 0 {
		fmt.Fprint(s.Err, "\n")
		s.showWarning("Applied changes may be incomplete", "The plan was created with the -target option in effect, so some changes\nrequested in the configuration may have been ignored and the output values may\nnot be fully updated. Run the following command to verify that no other\nchanges are pending:\n    rdmaform plan\n\nNote that the -target option is not suitable for routine use, and is provided\nonly for exceptional situations such as recovering from errors or mistakes, or\nwhen rdmaform specifically suggests to use it as part of an error message.")
	}
	se.view.Summary(destroy, report)
	if !destroy {
		se.view.Outputs(se.m.State())
	}
	return 0
}

// lostLockNote says what an apply that lost the etcd lock leaves: etcd
// refused its records from the moment the lock was gone, so what it did on
// the fabric since is in the agent but not in the state.
const lostLockNote = `The changes recorded before the lock was lost are kept. Every operation reported
above as done but not recorded ("the state could not record") did complete on the
fabric: the objects it made or changed are in the agent, and those it destroyed are
gone, while the state still says what it said before. Once the command now holding
the lock has finished, run "rdmaform plan" (or "rdmaform refresh"): it finds these
objects in the agent (the state names those being made) and shows what differs.
`

// successLine is Terraform's bold green closing line.
func successLine(text string, color bool) string {
	return colorize.Colorize(color).Style(text, colorize.Bold, colorize.Green)
}

func completeLine(destroy bool, r *apply.Report, color bool) string {
	c := func(text string) string { return successLine(text, color) }
	if destroy {
		return c(fmt.Sprintf("Destroy complete! Resources: %d destroyed.", r.Destroyed))
	}
	return c("Apply complete! Resources: " + resourceCounts(r) + ".")
}

// resourceCounts is Terraform's count of what an apply did: "1 imported, "
// first when it imported anything, ", 1 forgotten" last when it forgot.
func resourceCounts(r *apply.Report) string {
	s := fmt.Sprintf("%d added, %d changed, %d destroyed", r.Added, r.Changed, r.Destroyed)
	if r.Imported > 0 {
		s = fmt.Sprintf("%d imported, %s", r.Imported, s)
	}
	if r.Forgotten > 0 {
		s += fmt.Sprintf(", %d forgotten", r.Forgotten)
	}
	return s
}

func failedLine(destroy bool, r *apply.Report) string {
	skipped := 0
	for _, n := range r.Skipped {
		skipped += len(n.Objects)
	}
	verb := "Apply"
	if destroy {
		verb = "Destroy"
	}
	outcome := "failed"
	if len(r.Errors) == 0 && skipped == 0 && r.Interrupted {
		outcome = "interrupted"
	}
	cancelled := ""
	if len(r.Cancelled) > 0 {
		cancelled = fmt.Sprintf(", %d cancelled", len(r.Cancelled))
	}
	return fmt.Sprintf("%s %s. Resources: %s; %d failed, %d skipped%s, %d not started.",
		verb, outcome, resourceCounts(r), len(r.Errors), skipped, cancelled, len(r.NotStarted))
}

// listed is a line "what (n): a, b" for a non-empty list, else "".
func listed(what string, objects []string) string {
	if len(objects) == 0 {
		return ""
	}
	return fmt.Sprintf("\n%s (%d): %s", what, len(objects), objectList(objects))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// writeOutputs prints the root outputs as recorded in the state: the
// manager's copy, which the recorder kept current (reading the state
// again would decode every object).
func writeOutputs(se *session, w io.Writer, color bool) {
	st := se.m.State()
	if st == nil || len(st.Outputs) == 0 {
		return
	}
	title := successLine("Outputs:", color)
	fmt.Fprintf(w, "\n%s\n\n", title)
	for _, n := range st.OutputNames() {
		o := st.Outputs[n]
		if o.Sensitive {
			fmt.Fprintf(w, "%s = <sensitive>\n", termsafe.String(n))
			continue
		}
		fmt.Fprintf(w, "%s = %s\n", termsafe.String(n), termsafe.Text(formatOutput(o)))
	}
}

// objectList lists operations ("endpoint.c[3] (create)") one by one when
// they are few, else per block and operation, so that 1,000 endpoints not
// started make one line: "endpoint.c: 998 instances (create)"; past a few
// blocks, it says how many more there are rather than naming them all.
func objectList(ops []string) string {
	const few = 10
	if len(ops) <= few {
		return strings.Join(ops, ", ")
	}
	type group struct{ block, op string }
	var order []group
	counts := map[group]int{}
	first := map[group]string{}
	for _, o := range ops {
		addr, op := o, "" // "ADDR (op)", where a key may hold spaces
		if i := strings.LastIndex(o, " ("); i >= 0 {
			addr, op = o[:i], o[i+1:]
		}
		g := group{block: addr, op: op}
		if inst, err := addrs.ParseInstance(addr); err == nil {
			g.block = inst.Resource.String()
		}
		if counts[g] == 0 {
			order = append(order, g)
			first[g] = o
		}
		counts[g]++
	}
	var parts []string
	left := 0 // operations in the groups past the first few
	for i, g := range order {
		switch {
		case i >= few:
			left += counts[g]
		case counts[g] > 1:
			parts = append(parts, fmt.Sprintf("%s: %d instances %s", g.block, counts[g], g.op))
		default:
			parts = append(parts, first[g])
		}
	}
	if left > 0 {
		return fmt.Sprintf("%s and %d more", strings.Join(parts, ", "), left)
	}
	return strings.Join(parts, ", ")
}
