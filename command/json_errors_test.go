package command

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// requireJSONDiagnostic checks that a command run with -json printed
// nothing but Terraform's machine-readable UI (every line a JSON object
// of module rdmaform.ui, nothing on standard error), with an error
// diagnostic whose summary starts with summary.
func requireJSONDiagnostic(t *testing.T, what string, code int, out, errs, summary string) {
	t.Helper()
	requireJSONLines(t, what, code, out, errs, summary)
}

// requireJSONErrors is requireJSONDiagnostic for a command whose -json
// output is a document (status, show, output, version): the diagnostics
// are on standard error, and standard output is empty.
func requireJSONErrors(t *testing.T, what string, code int, out, errs, summary string) {
	t.Helper()
	requireJSONLines(t, what, code, errs, out, summary)
}

func requireJSONLines(t *testing.T, what string, code int, out, quiet, summary string) {
	t.Helper()
	if code != 1 {
		t.Errorf("%s: exit code %d, want 1", what, code)
	}
	if quiet != "" {
		t.Errorf("%s: printed on the other stream with -json:\n%s", what, quiet)
	}
	found := false
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		var m struct {
			Module     string `json:"@module"`
			Level      string `json:"@level"`
			Message    string `json:"@message"`
			Type       string
			Diagnostic struct{ Severity, Summary, Detail string }
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil || m.Module != "rdmaform.ui" {
			t.Errorf("%s: a line that is not rdmaform's JSON UI (%v): %q", what, err, line)
			continue
		}
		if m.Type == "log" && (strings.HasPrefix(m.Message, "Error:") || strings.HasPrefix(m.Message, "Warning:")) {
			t.Errorf("%s: an error or warning printed as text, not as a diagnostic: %q", what, line)
		}
		if m.Type == "diagnostic" && m.Level == "error" && m.Diagnostic.Severity == "error" && strings.HasPrefix(m.Diagnostic.Summary, summary) {
			found = true
		}
	}
	if !found {
		t.Errorf("%s: no error diagnostic %q in:\n%s", what, summary, out)
	}
}

func TestJSONFlagErrorsAreDiagnostics(t *testing.T) {
	meta := withFabric(t, nil)
	dir := planDir(t, planTestConfig)
	for _, cmd := range []string{"plan", "apply", "destroy", "refresh"} {
		code, out, errs := meta.cmd(t, dir, "", cmd, "-json", "-bogus")
		requireJSONDiagnostic(t, cmd+" -json -bogus", code, out, errs, "Failed to parse command-line flags")
	}
	for _, cmd := range []string{"status", "show", "output", "version"} {
		code, out, errs := meta.cmd(t, dir, "", cmd, "-json", "-bogus")
		requireJSONErrors(t, cmd+" -json -bogus", code, out, errs, "Failed to parse command-line flags")
	}
	code, out, errs := meta.cmd(t, dir, "", "show", "-json", "missing.rdmastate")
	requireJSONErrors(t, "show -json of a missing file", code, out, errs, "Failed to read missing.rdmastate")
	for _, cmd := range []string{"plan", "apply", "destroy", "refresh"} {
		code, out, errs := meta.cmd(t, dir, "", cmd, "-json", "-auto-approve=true", "-target=not an address")
		if cmd == "plan" {
			code, out, errs = meta.cmd(t, dir, "", cmd, "-json", "-target=not an address")
		}
		requireJSONDiagnostic(t, cmd+" -json -target=bad", code, out, errs, "Invalid -target address")
	}
}

// Every command with -json reports a bad flag, a backend it cannot use
// and an agent it cannot reach as the UI's diagnostics: on standard
// output for the commands whose output is the UI's lines, on standard
// error for those whose output is one document.
func TestJSONErrorsOfEveryCommandAreDiagnostics(t *testing.T) {
	uninitialised := stateDir(t, testState)
	if code, _, errs := stateCmd(t, uninitialised, "", "init"); code != 0 {
		t.Fatal(errs)
	}
	writeConfig(t, uninitialised, "rdmaform {\n  backend \"local\" {\n    path = \"moved.rdmastate\"\n  }\n}\n")
	configured := planDir(t, planTestConfig)
	unreachable := Meta{Connect: func(context.Context, string, io.Writer, func() bool) (*fabricConn, error) {
		return nil, errors.New("no rdmaform agent answers at /nowhere/agent.sock")
	}}
	socket := filepath.Join(t.TempDir(), "agent.sock")
	const (
		flag    = "Failed to parse command-line flags"
		backend = "Backend initialization required"
		agent   = "Cannot reach the rdmaform agent"
	)
	for _, c := range []struct {
		args     []string
		dir      string
		meta     Meta
		summary  string
		document bool // the -json output is one document: diagnostics on stderr
	}{
		{[]string{"plan", "-json", "-bogus"}, configured, Meta{NoAgent: true}, flag, false},
		{[]string{"apply", "-json", "-bogus"}, configured, Meta{NoAgent: true}, flag, false},
		{[]string{"destroy", "-json", "-bogus"}, configured, Meta{NoAgent: true}, flag, false},
		{[]string{"refresh", "-json", "-bogus"}, configured, Meta{NoAgent: true}, flag, false},
		{[]string{"status", "-json", "-bogus"}, configured, Meta{}, flag, true},
		{[]string{"show", "-json", "-bogus"}, configured, Meta{}, flag, true},
		{[]string{"output", "-json", "-bogus"}, configured, Meta{}, flag, true},
		{[]string{"version", "-json", "-bogus"}, configured, Meta{}, flag, true},

		{[]string{"plan", "-json", "-refresh=false"}, uninitialised, Meta{NoAgent: true}, backend, false},
		{[]string{"apply", "-json", "-auto-approve"}, uninitialised, Meta{NoAgent: true}, backend, false},
		{[]string{"destroy", "-json", "-auto-approve"}, uninitialised, Meta{NoAgent: true}, backend, false},
		{[]string{"refresh", "-json"}, uninitialised, Meta{NoAgent: true}, backend, false},
		{[]string{"show", "-json"}, uninitialised, Meta{}, backend, true},
		{[]string{"output", "-json"}, uninitialised, Meta{}, backend, true},

		{[]string{"plan", "-json"}, configured, unreachable, agent, false},
		{[]string{"apply", "-json", "-auto-approve"}, configured, unreachable, agent, false},
		{[]string{"destroy", "-json", "-auto-approve"}, configured, unreachable, agent, false},
		{[]string{"refresh", "-json"}, configured, unreachable, agent, false},
		{[]string{"status", "-json", "-agent=" + socket}, configured, Meta{}, "no rdmaform agent answers at " + socket, true},
	} {
		what := strings.Join(c.args, " ")
		code, out, errs := c.meta.cmd(t, c.dir, "", c.args...)
		if c.document {
			requireJSONErrors(t, what, code, out, errs, c.summary)
		} else {
			requireJSONDiagnostic(t, what, code, out, errs, c.summary)
		}
	}
}

// An error is one diagnostic whatever its words: an agent's message
// holding a line that starts "Error: " stays in its detail (read back from
// text, it was split into a second diagnostic).
func TestJSONDiagnosticKeepsQuotedText(t *testing.T) {
	meta := Meta{Connect: func(context.Context, string, io.Writer, func() bool) (*fabricConn, error) {
		return nil, errors.New("the agent refused\nError: quoted from its log")
	}}
	dir := planDir(t, planTestConfig)
	code, out, errs := meta.cmd(t, dir, "", "plan", "-json")
	requireJSONDiagnostic(t, "plan -json", code, out, errs, "Cannot reach the rdmaform agent")
	var diags []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m struct {
			Type       string
			Diagnostic struct{ Summary, Detail string }
		}
		if json.Unmarshal([]byte(line), &m) == nil && m.Type == "diagnostic" {
			diags = append(diags, m.Diagnostic.Summary+" | "+m.Diagnostic.Detail)
		}
	}
	if len(diags) != 1 || !strings.Contains(diags[0], "the agent refused\nError: quoted from its log") {
		t.Errorf("want one diagnostic quoting the agent's whole message, got %q", diags)
	}
}

func TestJSONAgentUnreachableIsADiagnostic(t *testing.T) {
	meta := Meta{Connect: func(context.Context, string, io.Writer, func() bool) (*fabricConn, error) {
		return nil, errors.New("no rdmaform agent answers at /nowhere/agent.sock")
	}}
	dir := planDir(t, planTestConfig)
	code, out, errs := meta.cmd(t, dir, "", "plan", "-json")
	requireJSONDiagnostic(t, "plan -json", code, out, errs, "Cannot reach the rdmaform agent")
	for _, cmd := range []string{"apply", "destroy", "refresh"} {
		code, out, errs := meta.cmd(t, dir, "", cmd, "-json", "-auto-approve")
		requireJSONDiagnostic(t, cmd+" -json", code, out, errs, "Cannot reach the rdmaform agent")
	}
}

func TestJSONBackendInitRequiredIsADiagnostic(t *testing.T) {
	dir := stateDir(t, testState)
	if code, _, errs := stateCmd(t, dir, "", "init"); code != 0 {
		t.Fatal(errs)
	}
	writeConfig(t, dir, "rdmaform {\n  backend \"local\" {\n    path = \"moved.rdmastate\"\n  }\n}\n")
	meta := withFabric(t, nil)
	for _, args := range [][]string{{"plan", "-json", "-refresh=false"}, {"apply", "-json", "-auto-approve"}, {"destroy", "-json", "-auto-approve"}, {"refresh", "-json"}} {
		code, out, errs := meta.cmd(t, dir, "", args...)
		requireJSONDiagnostic(t, strings.Join(args, " "), code, out, errs, "Backend initialization required")
	}
}

func TestJSONLockErrorIsADiagnostic(t *testing.T) {
	dir := stateDir(t, testState)
	holdStateLock(t, dir)
	meta := withFabric(t, nil)
	code, out, errs := meta.cmd(t, dir, "", "plan", "-json", "-refresh=false")
	requireJSONDiagnostic(t, "plan -json against a held lock", code, out, errs, "Error acquiring the state lock")
}

func TestStatusJSONWithoutAgentIsADiagnostic(t *testing.T) {
	t.Parallel()
	socket := filepath.Join(t.TempDir(), "agent.sock")
	code, out, errs := runStatusForTest("-json", "-agent="+socket)
	requireJSONErrors(t, "status -json", code, out, errs, "no rdmaform agent answers at "+socket)
	if !strings.Contains(errs, "rdmaform agent -socket=") {
		t.Errorf("status -json without an agent does not say what to do:\n%s", errs)
	}
}

// validate -json says a bad flag or argument in its document, as
// Terraform's: one JSON object on standard output, valid false.
func TestValidateJSONFlagErrorsAreInItsDocument(t *testing.T) {
	dir := planDir(t, planTestConfig)
	for _, c := range []struct {
		args    []string
		summary string
	}{
		{[]string{"validate", "-json", "-bogus"}, "Failed to parse command-line flags"},
		{[]string{"validate", "-json", "extra"}, "validate takes no arguments; use -chdir=DIR to validate another directory."},
	} {
		code, out, errs := stateCmd(t, dir, "", c.args...)
		var doc struct {
			Valid       *bool
			ErrorCount  int `json:"error_count"`
			Diagnostics []struct{ Severity, Summary, Detail string }
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 1 || errs != "" {
			t.Errorf("%v: exit code %d, not one JSON document (%v):\n%s\nstderr: %s", c.args, code, err, out, errs)
			continue
		}
		if doc.Valid == nil || *doc.Valid || doc.ErrorCount != 1 || len(doc.Diagnostics) != 1 ||
			doc.Diagnostics[0].Severity != "error" || doc.Diagnostics[0].Summary != c.summary {
			t.Errorf("%v: document %+v, want one error %q", c.args, doc, c.summary)
		}
	}
	// -help is still help, on standard error.
	if code, out, errs := stateCmd(t, dir, "", "validate", "-json", "-help"); code != 0 || out != "" || !strings.Contains(errs, "Usage: rdmaform") {
		t.Errorf("validate -json -help: %d\n%s\n%s", code, out, errs)
	}
}
