package config

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// TestWindowedDiagnosticsMatchHCL checks that rendering a large file's
// diagnostics through windows gives exactly HCL's own output, but for the
// column in the position.
func TestWindowedDiagnosticsMatchHCL(t *testing.T) {
	var b strings.Builder
	b.WriteString("variable \"v\" {\n  default = 1\n}\n")
	for i := 0; i < 400; i++ {
		b.WriteString("# padding to make the file large enough to be windowed\n")
	}
	b.WriteString(`listener "a" {
  address = "10.77.0.1"
  port    = {
    not = "a number"
  }
}
endpoint "b" {
  count   = 2
  address = "10.77.0.1"
  port    = var.v + 70000 + count.index
  qp { type = "ud" }
}
`)
	src := b.String()
	if len(src) < windowMin {
		t.Fatalf("test file is %d bytes, under windowMin", len(src))
	}
	l := NewLoader()
	_, diags := l.LoadSources(map[string][]byte{"big.rdma.hcl": []byte(src)}, VarInputs{})
	if len(diags) < 3 {
		t.Fatalf("want at least 3 diagnostics, got %v", diags)
	}
	for _, color := range []bool{false, true} {
		var got, want bytes.Buffer
		if err := l.WriteDiagnostics(&got, diags, color, 78); err != nil {
			t.Fatal(err)
		}
		for _, d := range diags {
			var one bytes.Buffer
			if err := hcl.NewDiagnosticTextWriter(&one, l.Files(), 78, color).WriteDiagnostic(d); err != nil {
				t.Fatal(err)
			}
			want.Write(withColumn(one.Bytes(), d))
		}
		if testing.Verbose() && !color {
			t.Log(got.String())
		}
		if got.String() != want.String() {
			t.Errorf("color=%v: windowed output differs.\ngot:\n%s\nwant:\n%s", color, got.String(), want.String())
		}
	}
}

// TestDiagnosticsGiveFileLineColumn checks the position a diagnostic is
// given at: file:line:col, also without colour (no underline).
func TestDiagnosticsGiveFileLineColumn(t *testing.T) {
	src := "listener \"a\" {\n  address = \"10.77.0.1\"\n  port    = \"abc\"\n}\n"
	l := NewLoader()
	_, diags := l.LoadSources(map[string][]byte{"main.rdma.hcl": []byte(src)}, VarInputs{})
	if !diags.HasErrors() {
		t.Fatal("want an error for a port that is not a number")
	}
	var out bytes.Buffer
	if err := l.WriteDiagnostics(&out, diags, false, 0); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "  on main.rdma.hcl:3:13, in listener \"a\":\n   3:   port    = \"abc\"\n") {
		t.Errorf("want the position as main.rdma.hcl:3:13 above the source line, got:\n%s", out.String())
	}
}
