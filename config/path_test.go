package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
)

// path.module and path.root are the configuration's directory, "." as
// Terraform gives its root module's, so file("${path.module}/x") and
// templatefile read beside the configuration; path.cwd is the absolute
// directory rdmaform was started in (Loader.StartDir, before -chdir).
func TestPathValues(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"peer.txt": "10.77.0.2\n",
		"a.tftpl":  "qp=${qp}",
		"main" + HCLSuffix: `
locals {
  peer = trimspace(file("${path.module}/peer.txt"))
}
listener "l" {
  address = local.peer
  port    = 7471
  accept {
    private_data = templatefile("${path.root}/a.tftpl", { qp = 17 })
  }
}
output "paths" {
  value = [path.module, path.root, path.cwd]
}
`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	l := NewLoader()
	l.StartDir = "/somewhere/else"
	cfg, diags := l.Load(".", VarInputs{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	inst := cfg.Instances[addrs.Instance{Resource: addrs.Resource{Kind: addrs.Listener, Name: "l"}}]
	if got := inst.Value.GetAttr("address").AsString(); got != "10.77.0.2" {
		t.Errorf("address %q, want the file's", got)
	}
	if got := inst.Value.GetAttr("accept").GetAttr("private_data").AsString(); got != "qp=17" {
		t.Errorf("private_data %q, want the template's", got)
	}
	var got []string
	for _, v := range cfg.Outputs["paths"].Value.AsValueSlice() {
		got = append(got, v.AsString())
	}
	if want := []string{".", ".", "/somewhere/else"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("paths %q, want %q", got, want)
	}

	// Without StartDir, path.cwd is the working directory; the console
	// (EvalWith) sees path too.
	cfg, diags = NewLoader().Load(".", VarInputs{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	wd, _ := os.Getwd()
	expr, _ := hclsyntax.ParseExpression([]byte("path.cwd"), "<console-input-1>", hcl.InitialPos)
	noState := func(addrs.Instance) (cty.Value, bool) { return cty.NilVal, false }
	if v, d := cfg.EvalWith(expr, noState); d.HasErrors() || v.AsString() != wd {
		t.Errorf("console path.cwd = %#v %v, want %q", v, d, wd)
	}
}

// A path attribute other than module, root and cwd is named with the three;
// "path" itself is no longer met with a suggestion of "each".
func TestPathReferenceErrors(t *testing.T) {
	for _, c := range []struct{ expr, want string }{
		{"path.mod", "path has only path.module and path.root"},
		{"path", "path has only path.module and path.root"},
		{"paht.module", `There is nothing named "paht"; references start with var., local., protection_domain., listener., endpoint., agent., count., each., rdmaform. or path. Did you mean "path"?`},
	} {
		_, diags := NewLoader().LoadSources(map[string][]byte{"main" + HCLSuffix: []byte(`output "o" {
  value = ` + c.expr + `
}`)}, VarInputs{})
		if !diags.HasErrors() || !strings.Contains(diags.Error(), c.want) || strings.Contains(diags.Error(), `"each"`) {
			t.Errorf("%s: %v, want %q", c.expr, diags, c.want)
		}
	}
}
