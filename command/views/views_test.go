package views

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestWantsJSON(t *testing.T) {
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

// Text written as the human UI's messages comes out as diagnostics and
// log lines, one a message, even two messages in one write.
func TestTextWriterMakesDiagnostics(t *testing.T) {
	var out bytes.Buffer
	w := NewJSONView(&out).TextWriter()
	fmt.Fprintf(w, "Error: Cannot reach the agent\n\nno agent answers\n\nRun plan -refresh=false.\n")
	fmt.Fprintf(w, "Warning: Deprecated\n\nsay it otherwise\nError: Second\n")
	fmt.Fprintf(w, "Note: an agent was started\n")
	type line struct {
		Level      string `json:"@level"`
		Message    string `json:"@message"`
		Module     string `json:"@module"`
		Type       string
		Diagnostic *struct{ Severity, Summary, Detail string }
	}
	var got []line
	for _, s := range strings.Split(strings.TrimRight(out.String(), "\n"), "\n") {
		var l line
		if err := json.Unmarshal([]byte(s), &l); err != nil || l.Module != Module {
			t.Fatalf("not a UI line (%v): %s", err, s)
		}
		got = append(got, l)
	}
	if len(got) != 4 {
		t.Fatalf("%d lines, want 4:\n%s", len(got), out.String())
	}
	want := []struct{ level, typ, severity, summary, detail string }{
		{"error", "diagnostic", "error", "Cannot reach the agent", "no agent answers\n\nRun plan -refresh=false."},
		{"warn", "diagnostic", "warning", "Deprecated", "say it otherwise"},
		{"error", "diagnostic", "error", "Second", ""},
		{"info", "log", "", "", ""},
	}
	for i, w := range want {
		g := got[i]
		if g.Level != w.level || g.Type != w.typ {
			t.Errorf("line %d: %s %s, want %s %s", i, g.Level, g.Type, w.level, w.typ)
		}
		if w.typ == "log" {
			if g.Message != "Note: an agent was started" || g.Diagnostic != nil {
				t.Errorf("line %d: %+v", i, g)
			}
			continue
		}
		if d := g.Diagnostic; d == nil || d.Severity != w.severity || d.Summary != w.summary || d.Detail != w.detail {
			t.Errorf("line %d: diagnostic %+v, want %+v", i, d, w)
		}
	}
}
