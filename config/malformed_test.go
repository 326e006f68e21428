package config

import (
	"math/rand"
	"strings"
	"testing"
)

// TestMalformedInputs feeds inputs the issue names: binary garbage, deep
// nesting, a huge file, invalid UTF-8. Each must end in diagnostics
// (rendered without error), not a panic. Deep but well-formed nesting is
// valid and only has to load. No wall-clock bound: on a loaded host deep
// brackets took 28 s; a hang is go test's timeout.
func TestMalformedInputs(t *testing.T) {
	garbage := make([]byte, 1<<20)
	rand.New(rand.NewSource(1)).Read(garbage)
	deep := 20000
	cases := map[string]string{
		"binary garbage":      string(garbage),
		"deep brackets":       "locals {\n  a = " + strings.Repeat("[", deep) + strings.Repeat("]", deep) + "\n}\n",
		"deep parens":         "locals {\n  a = " + strings.Repeat("(", deep) + "1" + strings.Repeat(")", deep) + "\n}\n",
		"deep unclosed":       "locals {\n  a = " + strings.Repeat("{a = ", deep) + "\n",
		"deep blocks":         strings.Repeat("listener \"x\" {\n", deep),
		"deep templates":      "locals {\n  a = \"" + strings.Repeat("${\"", deep/4) + "\n}\n",
		"invalid utf-8":       "listener \"\xff\xfe\" {\n  address = \"\xc3\x28\"\n  port = 7471\n}\n",
		"nul bytes":           "listener \"a\" {\x00\x00}\n",
		"huge file":           strings.Repeat("# comment line padding the file out\n", 300000) + "listener \"a\" {\n  port = 0\n}\n",
		"many errors":         strings.Repeat("listener \"a\" { port = \"x\" }\n", 5000),
		"unterminated string": "listener \"a\" {\n  address = \"10.77.0.1\n",
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			l := NewLoader()
			_, diags := l.LoadSources(map[string][]byte{"main.rdma.hcl": []byte(src)}, VarInputs{})
			if !diags.HasErrors() && !strings.HasPrefix(name, "deep brackets") && !strings.HasPrefix(name, "deep parens") {
				t.Errorf("no error diagnostics")
			}
			var b strings.Builder
			if err := l.WriteDiagnostics(&b, diags, false, 80); err != nil {
				t.Errorf("WriteDiagnostics: %v", err)
			}
		})
	}
}

// TestRepeatedSyntaxErrorsFold checks that thousands of identical errors
// on one line (a fuzzer's find: a line of control characters made a
// diagnostic each, and their rendering took seconds) fold into one.
func TestRepeatedSyntaxErrorsFold(t *testing.T) {
	l := NewLoader()
	_, diags := l.LoadSources(map[string][]byte{"main.rdma.hcl": []byte("\xcf\"" + strings.Repeat("\x16", 3900))}, VarInputs{})
	if len(diags) == 0 || len(diags) > 5 {
		t.Fatalf("%d diagnostics, want a few", len(diags))
	}
	var folded bool
	for _, d := range diags {
		folded = folded || strings.Contains(d.Detail, "more like this on line 1.")
	}
	if !folded {
		t.Errorf("no folded diagnostic: %v", diags)
	}
}
