package config

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// A diagnostic may quote the agent (the devices or listeners it could not
// list, in its words): its summary and detail are escaped, in colour too.
func TestDiagnosticsEscapeTheirText(t *testing.T) {
	d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Failed to list the agent's listeners\u202e",
		Detail: "the agent said: go away\x1b]0;owned\x07\nsecond line"}
	for _, color := range []bool{false, true} {
		var b bytes.Buffer
		if err := NewLoader().WriteDiagnostics(&b, hcl.Diagnostics{d}, color, 0); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if strings.Contains(out, "\x1b]0;owned\x07") || strings.Contains(out, "\u202e") || !color && strings.ContainsAny(out, "\x1b\x07") {
			t.Errorf("colour %v: the diagnostic drives the terminal: %q", color, out)
		}
		for _, want := range []string{`listeners\u202e`, `go away\x1b]0;owned\a` + "\nsecond line"} {
			if !strings.Contains(out, want) {
				t.Errorf("colour %v: the diagnostic lacks %q: %q", color, want, out)
			}
		}
	}
	if d.Detail != "the agent said: go away\x1b]0;owned\x07\nsecond line" {
		t.Errorf("the diagnostic itself changed: %q", d.Detail)
	}
}
