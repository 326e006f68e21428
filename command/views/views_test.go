package views

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

func TestWantsJSON(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want bool
	}{
		{nil, false},
		{[]string{"-json"}, true},
		{[]string{"--json", "-bogus"}, true},
		{[]string{"-bogus", "-json"}, true},
		{[]string{"-json=false"}, false},
		{[]string{"-json", "-json=false"}, false},
		{[]string{"plan.out", "-json"}, false}, // flags end at the first argument
		{[]string{"--", "-json"}, false},
		{[]string{"-json", "-help"}, false}, // help is text
	} {
		if got := WantsJSON(c.args); got != c.want {
			t.Errorf("WantsJSON(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}

// A diagnostic is one line of the machine-readable UI in the shape of
// Terraform's views/json.Diagnostic; a note written as text is a log line.
func TestJSONViewDiagnosticsAndLog(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	v := NewJSONView(&out)
	v.Diagnostics(hcl.Diagnostics{
		{Severity: hcl.DiagError, Summary: "Cannot reach the agent", Detail: "no agent answers\n\nRun plan -refresh=false."},
		{Severity: hcl.DiagWarning, Summary: "Deprecated"},
	}, nil)
	fmt.Fprintf(v.LogWriter(), "\nNote: an agent was started\n")
	fmt.Fprintf(v.LogWriter(), "\n")
	type line struct {
		Level      string `json:"@level"`
		Message    string `json:"@message"`
		Module     string `json:"@module"`
		Timestamp  string `json:"@timestamp"`
		Type       string
		Diagnostic *struct{ Severity, Summary, Detail string }
	}
	var got []line
	for _, s := range strings.Split(strings.TrimRight(out.String(), "\n"), "\n") {
		var l line
		if err := json.Unmarshal([]byte(s), &l); err != nil || l.Module != Module || l.Timestamp == "" {
			t.Fatalf("not a UI line (%v): %s", err, s)
		}
		got = append(got, l)
	}
	if len(got) != 3 {
		t.Fatalf("%d lines, want 3:\n%s", len(got), out.String())
	}
	want := []struct{ level, message, typ, severity, summary, detail string }{
		{"error", "Error: Cannot reach the agent", "diagnostic", "error", "Cannot reach the agent", "no agent answers\n\nRun plan -refresh=false."},
		{"warn", "Warning: Deprecated", "diagnostic", "warning", "Deprecated", ""},
		{"info", "Note: an agent was started", "log", "", "", ""},
	}
	for i, w := range want {
		g := got[i]
		if g.Level != w.level || g.Type != w.typ || g.Message != w.message {
			t.Errorf("line %d: %s %s %q, want %s %s %q", i, g.Level, g.Type, g.Message, w.level, w.typ, w.message)
		}
		if w.typ == "log" {
			if g.Diagnostic != nil {
				t.Errorf("line %d: a log line with a diagnostic: %+v", i, g)
			}
			continue
		}
		if d := g.Diagnostic; d == nil || d.Severity != w.severity || d.Summary != w.summary || d.Detail != w.detail {
			t.Errorf("line %d: diagnostic %+v, want %+v", i, d, w)
		}
	}
	if !strings.Contains(out.String(), `"detail":""`) {
		t.Errorf("a diagnostic without detail has no empty detail, as Terraform's: %s", out.String())
	}
}

// The human form, byte for byte: "Error: SUMMARY", a blank line and the
// detail; a warning alike; nothing in them drives the terminal.
func TestViewDiagnosticsHuman(t *testing.T) {
	t.Parallel()
	var errb bytes.Buffer
	v := &View{Out: &bytes.Buffer{}, Err: &errb}
	v.Diagnostics(hcl.Diagnostics{
		{Severity: hcl.DiagError, Summary: "Failed to load state", Detail: "the file is\ntruncated"},
		{Severity: hcl.DiagError, Summary: "Workspace \"x\" already exists"},
		{Severity: hcl.DiagWarning, Summary: "Password sent without TLS", Detail: "peer said \x1b[2Jhi"},
	}, nil)
	want := "Error: Failed to load state\n\nthe file is\ntruncated\n" +
		"Error: Workspace \"x\" already exists\n" +
		"Warning: Password sent without TLS\n\npeer said \\x1b[2Jhi\n"
	if errb.String() != want {
		t.Errorf("got:\n%q\nwant:\n%q", errb.String(), want)
	}
}
