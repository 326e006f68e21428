package config

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad feeds arbitrary bytes to the loader as an HCL file and, when
// they look like JSON, as a JSON file. Any outcome but a panic or a hang
// is fine; diagnostics must render.
func FuzzLoad(f *testing.F) {
	seeds, _ := filepath.Glob("../examples/*/*.rdma.hcl")
	more, _ := filepath.Glob("testdata/*.rdma.*")
	for _, p := range append(seeds, more...) {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, tc := range ruleCases {
		f.Add([]byte(tc.src))
	}
	f.Add([]byte(`{"listener": {"a": {"address": "10.77.0.1", "port": 7471}}}`))
	f.Add([]byte("\xff\xfe\x00listener"))
	f.Fuzz(func(t *testing.T, src []byte) {
		name := "fuzz.rdma.hcl"
		if bytes.HasPrefix(bytes.TrimSpace(src), []byte("{")) {
			name = "fuzz.rdma.json"
		}
		for _, validate := range []bool{false, true} {
			l := NewLoader()
			l.Validate = validate
			// Keep each input fast: a mutated count of 90000 is valid
			// but would cost the fuzzer seconds per execution.
			l.MaxInstances = 1000
			_, diags := l.LoadSources(map[string][]byte{name: src}, VarInputs{})
			var out bytes.Buffer
			if err := l.WriteDiagnostics(&out, diags, false, 80); err != nil {
				t.Fatalf("WriteDiagnostics: %v", err)
			}
			l.JSON(diags)
		}
	})
}
