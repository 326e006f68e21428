package config

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// Diagnostics are reported in source order (file, line, column) however
// they were gathered: the planner adds its own after the configuration's
// (an import block's error on line 80 came before a listener's on line
// 11). Those without a source come first, as Terraform's views sort them;
// equals keep their order.
func TestDiagnosticsInSourceOrder(t *testing.T) {
	at := func(file string, line, col int) *hcl.Range {
		return &hcl.Range{Filename: file, Start: hcl.Pos{Line: line, Column: col, Byte: 0}, End: hcl.Pos{Line: line, Column: col + 1, Byte: 1}}
	}
	diag := func(summary string, r *hcl.Range) *hcl.Diagnostic {
		return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Subject: r}
	}
	for _, c := range []struct {
		name  string
		diags hcl.Diagnostics
		want  []string
	}{
		{"lines", hcl.Diagnostics{diag("import", at("main.rdma.hcl", 80, 3)), diag("listener", at("main.rdma.hcl", 11, 3))},
			[]string{"listener", "import"}},
		{"columns", hcl.Diagnostics{diag("second", at("main.rdma.hcl", 11, 20)), diag("first", at("main.rdma.hcl", 11, 3))},
			[]string{"first", "second"}},
		{"files", hcl.Diagnostics{diag("z", at("z.rdma.hcl", 1, 1)), diag("a", at("a.rdma.hcl", 90, 1))},
			[]string{"a", "z"}},
		{"sourceless first, stable", hcl.Diagnostics{diag("late", at("main.rdma.hcl", 2, 1)), diag("one", nil), diag("early", at("main.rdma.hcl", 1, 1)), diag("two", nil), diag("late again", at("main.rdma.hcl", 2, 1))},
			[]string{"one", "two", "early", "late", "late again"}},
	} {
		given := append(hcl.Diagnostics(nil), c.diags...)
		l := NewLoader()
		var b strings.Builder
		if err := l.WriteDiagnostics(&b, c.diags, false, 0); err != nil {
			t.Fatal(err)
		}
		var text, js []string
		for _, line := range strings.Split(b.String(), "\n") {
			if s, ok := strings.CutPrefix(line, "Error: "); ok {
				text = append(text, s)
			}
		}
		for _, d := range l.JSON(c.diags).Diagnostics {
			js = append(js, d.Summary)
		}
		want := strings.Join(c.want, ", ")
		if got := strings.Join(text, ", "); got != want {
			t.Errorf("%s: written in the order %s, want %s", c.name, got, want)
		}
		if got := strings.Join(js, ", "); got != want {
			t.Errorf("%s: JSON in the order %s, want %s", c.name, got, want)
		}
		for i := range given {
			if given[i] != c.diags[i] {
				t.Errorf("%s: the caller's diagnostics were reordered", c.name)
			}
		}
	}
}

// Load's own diagnostics, from every phase (decoding, variables,
// evaluation, imports), come in source order too.
func TestLoadDiagnosticsInSourceOrder(t *testing.T) {
	src := `import {
  to = listener.gone
}
variable "v" {
  type    = number
  default = "x"
}
endpoint "e" {
  address = "10.77.0.1"
  port    = 70000
}
endpoint "f" {
  address = "10.77.0.1"
  port    = 1
  bogus   = 1
}
`
	_, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(src)}, VarInputs{})
	var lines []int
	for _, d := range diags {
		lines = append(lines, d.Subject.Start.Line)
	}
	if len(lines) != 4 || lines[0] != 2 || lines[1] != 6 || lines[2] != 10 || lines[3] != 15 {
		t.Errorf("diagnostics on lines %v, want 2, 6, 10, 15: %v", lines, diags)
	}
}
