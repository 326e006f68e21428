package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// The file functions read from the working directory, as Terraform's do
// from the root module's; the hashes and timecmp give Terraform's answers.
func TestFileAndPathFunctions(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"peer.txt":       "10.77.0.2\n",
		"hello.tftpl":    "qp=${qp} %{ for p in ports }${p};%{ endfor }",
		"bad.tftpl":      "${nope}",
		"keys/a.pub":     "a",
		"keys/b.pub":     "b",
		"keys/notes.txt": "",
		"self.tftpl":     `${templatefile("self.tftpl", {})}`,
	} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	ctx := &hcl.EvalContext{Functions: Functions()}
	for _, c := range []struct{ expr, want string }{
		{`trimspace(file("peer.txt"))`, `"10.77.0.2"`},
		{`filebase64("keys/a.pub")`, `"YQ=="`},
		{`fileexists("peer.txt")`, `true`},
		{`fileset(".", "keys/*.pub")`, `["keys/a.pub","keys/b.pub"]`},
		{`templatefile("hello.tftpl", { qp = 17, ports = [7471, 7472] })`, `"qp=17 7471;7472;"`},
		{`basename("a/b/c.txt")`, `"c.txt"`},
		{`dirname("a/b/c.txt")`, `"a/b"`},
		{`base64sha256("hello world")`, `"uU0nuZNNPgilLlLX2n2r+sSE7+N6U4DukIj3rOLvzek="`},
		{`length(base64sha512("x"))`, `88`},
		{`uuidv5("dns", "rdmaform.example")`, `"4ba7338c-087b-5812-8c4e-5e4952aa4379"`},
		{`timecmp("2026-11-30T00:00:00Z", "2026-11-29T23:00:00-02:00")`, `-1`},
		{`timecmp("2026-11-30T01:00:00+01:00", "2026-11-30T00:00:00Z")`, `0`},
		{`filemd5("keys/a.pub")`, `"0cc175b9c0f1b6a831c399e269772661"`},
		{`filesha1("keys/a.pub")`, `"86f7e437faa5a7fce15d1ddcb9eaeaea377667b8"`},
		{`filesha256("keys/a.pub")`, `"ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb"`},
		{`substr(filesha512("keys/a.pub"), 0, 16)`, `"1f40fc92da241694"`},
		{`filebase64sha256("keys/a.pub")`, `"ypeBEsobvcr6wjGzmiPcTaeG7/gUfE5yuYB3ha/uSLs="`},
		{`length(filebase64sha512("keys/a.pub"))`, `88`},
		{`filesha256("keys/notes.txt") == sha256("")`, `true`},
	} {
		checkExpr(t, ctx, c.expr, c.want)
	}
	for _, c := range []struct{ expr, err string }{
		{`file("missing.txt")`, "no file exists"},
		{`templatefile("bad.tftpl", {})`, `vars map does not contain key "nope"`},
		{`templatefile("missing.tftpl", {})`, "no file exists at missing.tftpl"},
		{`templatefile("self.tftpl", {})`, "cannot recursively call templatefile from inside templatefile call"},
		{`filesha256("missing.bin")`, "no file exists at missing.bin"},
		{`timecmp("yesterday", "2026-11-30T00:00:00Z")`, "not a valid RFC3339 timestamp"},
	} {
		e, _ := hclsyntax.ParseExpression([]byte(c.expr), "f.hcl", hcl.InitialPos)
		if _, diags := e.Value(ctx); !diags.HasErrors() || !strings.Contains(diags.Error(), c.err) {
			t.Errorf("%s: %v, want an error with %q", c.expr, diags, c.err)
		}
	}
}
