package command

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/rdmaform/rdmaform/command/arguments"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/state"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

func init() {
	register(command{Name: "test", Synopsis: "Run the configuration's .rdmatest.hcl tests", Run: runTest})
}

const testHelp = `Usage: rdmaform [global options] test [options]

  Runs the tests of the configuration in the current directory, as
  "terraform test" does: each *.rdmatest.hcl file here and in tests/ holds
  run blocks that plan or apply the configuration and assert on the
  result. A file's runs share one state of their own (a temporary local
  state, under an agent namespace of their own, never the configuration's
  state), and what they applied is destroyed when the file ends.

Options:
  -filter=FILE         Run only this test file (repeatable).
  -test-directory=DIR  The directory of further test files (default tests).
  -var 'name=value'    Set a variable for every run (repeatable).
  -var-file=FILE       Load variable values from a file (repeatable).
  -verbose             Print each run's plan or apply.
  -json                Print Terraform's machine-readable test messages.
  -no-color            Do not colour the output.
`

func runTest(args []string, s Meta) int {
	s = s.withJSON(args) // -json: JSON from the first byte, flag errors too
	a, diags := arguments.ParseTest(args)
	if a.Help {
		fmt.Fprint(s.Err, testHelp)
		return 0
	}
	if diags.HasErrors() {
		s.argDiagnostics(diags, "")
		return 1
	}
	vars := a.Vars.Args
	view := &testView{out: s.Out, err: s.Err, color: !a.View.NoColor && !a.View.JSON && cfgIsTerminal(s.Out), loader: config.NewLoader()}
	if a.View.JSON {
		view.json = s.jsonView
		newJSONUI(s).version()
	}
	paths, err := testFiles(a.TestDirectory, a.Filters)
	if err != nil {
		view.diagnostics(hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot list the test files", Detail: err.Error()}}, nil)
		return 1
	}
	var files []*config.TestFile
	for _, p := range paths {
		f, d := view.loader.ParseTestFile(p)
		diags = append(diags, d...)
		if f != nil {
			files = append(files, f)
		}
	}
	view.diagnostics(diags, nil)
	if diags.HasErrors() {
		return 1
	}
	for i, v := range vars {
		if v.File { // read after the runner leaves this directory
			if abs, err := filepath.Abs(v.Value); err == nil {
				vars[i].Value = abs
			}
		}
	}
	view.abstract(files)
	t := &testRunner{s: s, view: view, cliVars: vars, verbose: a.Verbose}
	for _, f := range files {
		t.runFile(f)
	}
	view.summary(t.passed, t.failed, t.skipped, t.notCleaned)
	if t.failed > 0 || t.notCleaned {
		return 1
	}
	return 0
}

// testFiles lists the test files of the current directory, then of dir,
// each sorted, keeping only those filters name (when any).
func testFiles(dir string, filters []string) ([]string, error) {
	var out []string
	for _, d := range []string{".", dir} {
		names, err := filepath.Glob(filepath.Join(d, "*"+config.TestSuffix))
		if err != nil {
			return nil, err
		}
		sort.Strings(names)
		out = append(out, names...)
	}
	if len(filters) == 0 {
		return out, nil
	}
	var kept []string
	for _, p := range out {
		for _, f := range filters {
			if filepath.Clean(f) == p {
				kept = append(kept, p)
				break
			}
		}
	}
	if len(kept) == 0 {
		return nil, fmt.Errorf("no test file matches -filter %s (the files are %s)", strings.Join(filters, ", "), strings.Join(out, ", "))
	}
	return kept, nil
}

// testRunner runs test files one after the other, counting runs.
type testRunner struct {
	s                       Meta
	view                    *testView
	cliVars                 config.VarArgs
	verbose                 bool
	passed, failed, skipped int
	// notCleaned: a file's teardown left objects behind, which fails the
	// test command whatever its runs did.
	notCleaned bool
}

// runFile runs a file's runs in order in a working directory of its own,
// then destroys what they applied.
func (t *testRunner) runFile(f *config.TestFile) {
	t.view.file(f.Path, "starting", "")
	home, err := os.Getwd()
	if err != nil {
		t.fileFailed(f, "Cannot read the current directory", err.Error())
		return
	}
	work, err := testWorkDir(home)
	if err != nil {
		t.fileFailed(f, "Cannot prepare the test's working directory", err.Error())
		return
	}
	if err := os.Chdir(work); err != nil {
		t.fileFailed(f, "Cannot enter the test's working directory", err.Error())
		return
	}
	defer os.Chdir(home)
	failed, errored := false, false
	var applied []config.VarArgs // each apply's variables, for the teardown
	for i, run := range f.Runs {
		if errored {
			// As Terraform: after a run that could not complete, the
			// state is not what the next runs expect.
			t.skipped++
			t.view.run(f.Path, run.Name, "complete", "skip")
			continue
		}
		t.view.run(f.Path, run.Name, "starting", "")
		status, vars := t.runOne(f, run, i)
		t.view.run(f.Path, run.Name, "complete", status)
		switch status {
		case "pass":
			t.passed++
		case "error":
			errored, failed = true, true
			t.failed++
		default:
			failed = true
			t.failed++
		}
		if run.Command == "apply" && vars != nil {
			applied = append(applied, vars)
		}
	}
	t.view.file(f.Path, "teardown", "")
	if !t.teardown(f, work, applied) {
		failed, t.notCleaned = true, true
	}
	status := "pass"
	if failed {
		status = "fail"
	}
	t.view.file(f.Path, "complete", status)
}

func (t *testRunner) fileFailed(f *config.TestFile, summary, detail string) {
	t.view.diagnostics(hcl.Diagnostics{{Severity: hcl.DiagError, Summary: summary, Detail: detail}}, nil)
	t.failed += len(f.Runs)
	t.view.file(f.Path, "complete", "fail")
}

// testWorkDir makes a directory holding the configuration of dir (its
// files, linked) with an override file that keeps the test's state and
// agent objects apart from the configuration's own: a local state, and
// an agent namespace of its own.
func testWorkDir(dir string) (string, error) {
	settings, diags := config.LoadBackend(dir)
	if diags.HasErrors() {
		return "", diags
	}
	work, err := os.MkdirTemp("", "rdmatest-")
	if err != nil {
		return "", err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	statePath := config.DefaultStatePath
	if b := settings.Backend; b != nil && b.Type == "local" && b.Path != "" {
		statePath = b.Path
	}
	for _, e := range entries {
		n := e.Name()
		if n == ".rdmaform" || n == "tests" || config.IsTestFile(n) || strings.HasPrefix(n, statePath) || strings.HasPrefix(n, config.DefaultStatePath) {
			continue
		}
		if err := os.Symlink(filepath.Join(dir, n), filepath.Join(work, n)); err != nil {
			return "", err
		}
	}
	id := make([]byte, 4)
	rand.Read(id)
	agent := fmt.Sprintf("  agent {\n    namespace = %q\n", "rdmatest-"+hex.EncodeToString(id))
	if a := settings.Agent; a != nil && a.Socket != "" {
		socket := a.Socket
		if !filepath.IsAbs(socket) {
			socket = filepath.Join(dir, socket)
		}
		agent += fmt.Sprintf("    socket    = %q\n", socket)
	}
	override := "# Written by rdmaform test: the test's own state and agent namespace.\nrdmaform {\n  backend \"local\" {}\n" + agent + "  }\n}\n"
	return work, os.WriteFile(filepath.Join(work, "zzz_rdmatest_override"+config.HCLSuffix), []byte(override), 0o644)
}

// runOne runs one run block: status is pass, fail (an assertion, or an
// expected failure that did not happen) or error (the command failed).
// vars are the variables it ran with.
func (t *testRunner) runOne(f *config.TestFile, run *config.TestRun, index int) (string, config.VarArgs) {
	vars, diags := t.runVars(f, run, index)
	if diags.HasErrors() {
		t.view.diagnostics(diags, nil)
		return "error", nil
	}
	flags := varFlags(vars)
	var out, errs bytes.Buffer
	inner := t.s
	inner.Out, inner.Err, inner.diags, inner.jsonView = &out, &errs, nil, nil
	planPath := filepath.Join(".", ".rdmatest.plan")
	var code int
	if run.Command == "plan" {
		code = runPlan(append([]string{"-input=false", "-no-color", "-out=" + planPath}, flags...), inner)
	} else {
		code = runApply(append([]string{"-auto-approve", "-input=false", "-no-color"}, flags...), inner)
	}
	if t.verbose {
		t.view.text(out.String())
	}
	said := out.String() + errs.String()
	if len(run.ExpectFailures) > 0 {
		missing := missingFailures(run.ExpectFailures, said)
		if len(missing) > 0 {
			t.view.text(errs.String())
			t.view.diagnostics(hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Missing expected failure",
				Detail:  fmt.Sprintf("The run was expected to fail the conditions of %s, but they did not fail.", strings.Join(missing, ", ")),
				Subject: run.DeclRange.Ptr()}}, nil)
			return "fail", vars
		}
		if code != 0 {
			return "pass", vars // failed as expected: the assertions are not checked
		}
	} else if code != 0 {
		t.view.text(errs.String())
		return "error", vars
	}
	return t.assert(run, vars, inner, planPath), vars
}

// runVars writes the file's and the run's variables to a variable file,
// after the command line's: the run's win over the file's, which win over
// the command line's, as in Terraform.
func (t *testRunner) runVars(f *config.TestFile, run *config.TestRun, index int) (config.VarArgs, hcl.Diagnostics) {
	vars := append(config.VarArgs{}, t.cliVars...) // not nil: the run ran
	values := map[string]cty.Value{}
	var diags hcl.Diagnostics
	ctx := &hcl.EvalContext{Functions: config.Functions()}
	for _, attrs := range []hcl.Attributes{f.Variables, run.Variables} {
		for name, a := range attrs {
			v, d := a.Expr.Value(ctx)
			diags = append(diags, d...)
			values[name] = v
		}
	}
	if len(values) == 0 || diags.HasErrors() {
		return vars, diags
	}
	names := make([]string, 0, len(values))
	for n := range values {
		names = append(names, n)
	}
	sort.Strings(names)
	wf := hclwrite.NewEmptyFile()
	for _, n := range names {
		v, _ := values[n].UnmarkDeep()
		wf.Body().SetAttributeValue(n, v)
	}
	path, _ := filepath.Abs("rdmatest-run-" + strconv.Itoa(index) + ".rdmavars")
	if err := os.WriteFile(path, wf.Bytes(), 0o600); err != nil {
		return vars, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot write the run's variables", Detail: err.Error(), Subject: run.DeclRange.Ptr()}}
	}
	return append(vars, config.VarArg{File: true, Value: path}), nil
}

// missingFailures are the expected failures the command's output does not
// name (var.port, or the block: variable "port").
func missingFailures(expected []hcl.Traversal, said string) []string {
	var missing []string
	for _, tr := range expected {
		name := config.TraversalString(tr)
		parts := strings.SplitN(name, ".", 3)
		block := name
		if len(parts) >= 2 {
			kind := map[string]string{"var": "variable"}[parts[0]]
			if kind == "" {
				kind = parts[0]
			}
			block = fmt.Sprintf("%s %q", kind, strings.SplitN(parts[1], "[", 2)[0])
		}
		if !strings.Contains(said, name) && !strings.Contains(said, block) {
			missing = append(missing, name)
		}
	}
	return missing
}

// assert evaluates a run's assertions against what the run left: the
// state after an apply, the saved plan after a plan.
func (t *testRunner) assert(run *config.TestRun, vars config.VarArgs, inner Meta, planPath string) string {
	l := newConfigLoader(inner.startDir)
	l.CoreVersion = Version
	l.SkipPreconditions = true
	cfg, diags := l.Load(".", config.VarInputs{Args: vars, Env: rdmaVarEnv()})
	if diags.HasErrors() {
		t.view.diagnostics(diags, l)
		return "error"
	}
	st, ok := loadState(inner)
	if !ok {
		t.view.text(inner.Err.(*bytes.Buffer).String())
		return "error"
	}
	scope := config.TestScope{Values: stateValues(st)}
	if run.Command == "plan" {
		sp, err := readPlanFile(planPath)
		if err != nil {
			t.view.diagnostics(hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read the run's plan", Detail: err.Error()}}, nil)
			return "error"
		}
		scope.Values = plannedValueOf(sp.Plan)
	}
	scope.Outputs = cfg.OutputsWith(scope.Values)
	if usesLive(run) {
		socket := ""
		if cfg.Settings != nil && cfg.Settings.Agent != nil {
			socket = cfg.Settings.Agent.Socket
		}
		live, err := readLive(inner, socket, st)
		if err != nil {
			t.view.diagnostics(hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read the live view", Detail: fmt.Sprintf("The assertions of run %q read live.*, which the agent reports: %v.", run.Name, err), Subject: run.DeclRange.Ptr()}}, nil)
			return "error"
		}
		scope.Live = live
	}
	status := "pass"
	for _, a := range run.Asserts {
		d := assertOne(cfg, a, scope)
		if len(d) > 0 {
			t.view.diagnostics(d, nil)
		}
		if d.HasErrors() {
			status = "fail"
		}
	}
	return status
}

// usesLive reports whether a run's assertions read the live view.
func usesLive(run *config.TestRun) bool {
	for _, a := range run.Asserts {
		for _, tr := range a.Condition.Variables() {
			if tr.RootName() == "live" {
				return true
			}
		}
	}
	return false
}

// assertOne checks one assertion: a failure is Terraform's "Test
// assertion failed", its error_message, and the values the condition
// read.
func assertOne(cfg *config.Config, a *config.TestAssert, scope config.TestScope) hcl.Diagnostics {
	v, ctx, diags := cfg.EvalTest(a.Condition, scope)
	if diags.HasErrors() {
		return diags
	}
	v, _ = v.UnmarkDeep()
	switch {
	case !v.IsKnown():
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Unknown condition value",
			Detail:  "The condition depends on values known only after apply. Run it with command = apply, or assert on what the plan knows.",
			Subject: a.Condition.Range().Ptr(), Expression: a.Condition, EvalContext: ctx}}
	case v.IsNull():
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid condition result", Detail: "The condition is null; it must be true or false.",
			Subject: a.Condition.Range().Ptr(), Expression: a.Condition, EvalContext: ctx}}
	}
	b, err := convert.Convert(v, cty.Bool)
	if err != nil {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid condition result", Detail: fmt.Sprintf("The condition must be true or false: %v.", err),
			Subject: a.Condition.Range().Ptr(), Expression: a.Condition, EvalContext: ctx}}
	}
	if b.True() {
		return nil
	}
	msg := "The assertion's condition is false."
	if m, d := a.ErrorMessage.Value(ctx); !d.HasErrors() {
		if m, err := convert.Convert(m, cty.String); err == nil && m.IsKnown() && !m.IsNull() {
			um, _ := m.Unmark()
			msg = um.AsString()
		}
	}
	return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Test assertion failed", Detail: msg,
		Subject: a.Condition.Range().Ptr(), Expression: a.Condition, EvalContext: ctx}}
}

// teardown destroys what the file's runs applied, and says loudly what is
// left when it cannot; the working directory goes only when nothing is.
// It destroys with the last apply's variables, or, when the configuration
// does not load with those (a run that failed a validation), the
// previous run's.
func (t *testRunner) teardown(f *config.TestFile, work string, applied []config.VarArgs) bool {
	var out, errs bytes.Buffer
	inner := t.s
	inner.Out, inner.Err, inner.diags, inner.jsonView = &out, &errs, nil, nil
	st, ok := loadState(inner)
	if ok && (st == nil || len(st.Objects) == 0) {
		os.RemoveAll(work)
		return true
	}
	if len(applied) == 0 {
		applied = []config.VarArgs{t.cliVars}
	}
	for i := len(applied) - 1; i >= 0; i-- {
		out.Reset()
		errs.Reset()
		code := runDestroy(append([]string{"-auto-approve", "-input=false", "-no-color"}, varFlags(applied[i])...), inner)
		if t.verbose {
			t.view.text(out.String())
		}
		st, ok = loadState(inner)
		if code == 0 && ok && (st == nil || len(st.Objects) == 0) {
			os.RemoveAll(work)
			return true
		}
		if !ok || st == nil || len(st.Objects) == 0 || !strings.Contains(errs.String(), config.HCLSuffix+":") {
			break // not the configuration's fault: another run's variables would not help
		}
	}
	t.view.text(errs.String())
	t.view.leftBehind(f.Path, work, leftObjects(st))
	return false
}

func leftObjects(st *state.State) []string {
	if st == nil {
		return []string{"(the state could not be read)"}
	}
	var objs []addrs.Instance
	for _, o := range st.Objects {
		objs = append(objs, o.Addr)
	}
	sort.Slice(objs, func(i, j int) bool { return objs[i].Less(objs[j]) })
	out := make([]string, len(objs))
	for i, a := range objs {
		out[i] = a.String()
	}
	return out
}

// varFlags are the options that give vars to plan, apply or destroy.
func varFlags(vars config.VarArgs) []string {
	var flags []string
	for _, v := range vars {
		if v.File {
			flags = append(flags, "-var-file="+v.Value)
		} else {
			flags = append(flags, "-var="+v.Value)
		}
	}
	return flags
}
