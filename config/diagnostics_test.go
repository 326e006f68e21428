package config

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// TestWindowedDiagnosticsMatchHCL checks that rendering a large file's
// diagnostics through windows gives exactly HCL's own output.
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
		if err := hcl.NewDiagnosticTextWriter(&want, l.Files(), 78, color).WriteDiagnostics(diags); err != nil {
			t.Fatal(err)
		}
		if testing.Verbose() && !color {
			t.Log(got.String())
		}
		if got.String() != want.String() {
			t.Errorf("color=%v: windowed output differs.\ngot:\n%s\nwant:\n%s", color, got.String(), want.String())
		}
	}
}
