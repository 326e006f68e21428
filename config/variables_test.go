package config

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

const varsConfig = `
variable "port" {
  type    = number
  default = 1000
}
variable "name" {
  type = string
}
variable "tags" {
  type    = list(string)
  default = []
}
`

func TestVariablePrecedence(t *testing.T) {
	// Each source overrides the ones before it: default, environment,
	// rdmaform.rdmavars, *.auto.rdmavars (lexical), then -var/-var-file in
	// command-line order.
	dir := writeDir(t, map[string]string{
		"main.rdma.hcl":     varsConfig,
		"rdmaform.rdmavars": "port = 3000\nname = \"file\"\n",
		"a.auto.rdmavars":   "port = 4000\n",
		"b.auto.rdmavars":   "port = 5000\n",
		"extra.rdmavars":    "port = 6000\n",
	})
	for _, tc := range []struct {
		name string
		args VarArgs
		env  []string
		port int64
		who  string
	}{
		{"auto files, last wins", nil, nil, 5000, "file"},
		{"env is below files", nil, []string{"RDMAFORM_VAR_port=2000", "RDMAFORM_VAR_name=env"}, 5000, "file"},
		{"-var beats files", VarArgs{{Value: "port=7000"}}, nil, 7000, "file"},
		{"-var-file after -var wins", VarArgs{{Value: "port=7000"}, {File: true, Value: filepath.Join(dir, "extra.rdmavars")}}, nil, 6000, "file"},
		{"-var after -var-file wins", VarArgs{{File: true, Value: filepath.Join(dir, "extra.rdmavars")}, {Value: "port=7000"}, {Value: "name=cli"}}, nil, 7000, "cli"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, diags := Load(dir, VarInputs{Args: tc.args, Env: tc.env})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			if got := cfg.Variables["port"].Value; !got.RawEquals(cty.NumberIntVal(tc.port)) {
				t.Errorf("port = %#v, want %d", got, tc.port)
			}
			if got := cfg.Variables["name"].Value; !got.RawEquals(cty.StringVal(tc.who)) {
				t.Errorf("name = %#v, want %q", got, tc.who)
			}
		})
	}
}

func TestVariableFromEnvAndDefault(t *testing.T) {
	dir := writeDir(t, map[string]string{"main.rdma.hcl": varsConfig})
	cfg, diags := Load(dir, VarInputs{Env: []string{"RDMAFORM_VAR_name=env", "RDMAFORM_VAR_tags=[\"a\", \"b\"]", "OTHER=1"}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if got := cfg.Variables["port"].Value; !got.RawEquals(cty.NumberIntVal(1000)) {
		t.Errorf("port = %#v", got)
	}
	if got := cfg.Variables["tags"].Value; !got.RawEquals(cty.ListVal([]cty.Value{cty.StringVal("a"), cty.StringVal("b")})) {
		t.Errorf("tags = %#v", got)
	}
}

func TestVariableErrors(t *testing.T) {
	dir := writeDir(t, map[string]string{"main.rdma.hcl": varsConfig, "bad.rdmavars": "port = \"x\"\nnmae = 1\n"})
	for _, tc := range []struct {
		name string
		in   VarInputs
		want []string
	}{
		{"required missing", VarInputs{}, []string{`No value for required variable: The variable "name" has no default`}},
		{"undeclared -var", VarInputs{Args: VarArgs{{Value: "name=x"}, {Value: "prot=1"}}},
			[]string{`Value for undeclared variable: A variable named "prot" was assigned with -var, but the configuration declares no such variable. Did you mean "port"?`}},
		{"wrong type -var", VarInputs{Args: VarArgs{{Value: "name=x"}, {Value: "port=abc"}}},
			[]string{`Invalid value for variable: The value for var.port from -var is not a number`}},
		{"bad file", VarInputs{Args: VarArgs{{Value: "name=x"}, {File: true, Value: filepath.Join(dir, "bad.rdmavars")}}},
			[]string{`Invalid value for variable: The value for var.port from ` + filepath.Join(dir, "bad.rdmavars") + ` is not a number`, `Value for undeclared variable: The configuration declares no variable named "nmae"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := Load(dir, tc.in)
			var got []string
			for _, d := range diags {
				got = append(got, d.Summary+": "+d.Detail)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("diagnostics %q, want %d", got, len(tc.want))
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tc.want[i]) {
					t.Errorf("diagnostic %d = %q, want prefix %q", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// A variable file that cannot be read or parsed is reported alone, as
// Terraform stops there: not followed by "No value for required variable"
// for the variables it may set, nor by errors of values computed from them.
func TestUnreadableVariableFileReportedAlone(t *testing.T) {
	dir := writeDir(t, map[string]string{
		"main.rdma.hcl":  varsConfig + "locals {\n  n = var.name + 1\n}\n",
		"bad.rdmavars":   "name = \"x\"\nport = [1,\n",
		"block.rdmavars": "name {\n}\n",
	})
	for _, tc := range []struct {
		file, summary string
		line          int
	}{
		{"bad.rdmavars", "Missing expression", 3},
		{"block.rdmavars", `Unexpected "name" block`, 1},
		{"missing.rdmavars", "Failed to read variables file", 0},
	} {
		path := filepath.Join(dir, tc.file)
		_, diags := Load(dir, VarInputs{Args: VarArgs{{File: true, Value: path}}})
		if len(diags) != 1 || diags[0].Summary != tc.summary {
			t.Errorf("%s: %v, want only %q", tc.file, diags, tc.summary)
			continue
		}
		if tc.line > 0 && (diags[0].Subject == nil || diags[0].Subject.Filename != path || diags[0].Subject.Start.Line != tc.line) {
			t.Errorf("%s: at %v, want line %d of the file", tc.file, diags[0].Subject, tc.line)
		}
	}
}

func TestVarArgsFlagsKeepOrder(t *testing.T) {
	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
	var v VarArgs
	v.Register(fs)
	if err := fs.Parse([]string{"-var", "a=1", "--var-file=x.rdmavars", "-var=b=[1,2]"}); err != nil {
		t.Fatal(err)
	}
	want := VarArgs{{Value: "a=1"}, {File: true, Value: "x.rdmavars"}, {Value: "b=[1,2]"}}
	if len(v) != len(want) {
		t.Fatalf("args = %v", v)
	}
	for i := range want {
		if v[i] != want[i] {
			t.Errorf("arg %d = %v, want %v", i, v[i], want[i])
		}
	}
	fs.SetOutput(new(strings.Builder))
	if err := fs.Parse([]string{"-var", "novalue"}); err == nil {
		t.Error("-var without = accepted")
	}
}

func TestValidateModeUnknownVariables(t *testing.T) {
	dir := writeDir(t, map[string]string{"main.rdma.hcl": `
variable "n" { type = number }
variable "addr" { type = string }
listener "l" {
  address = var.addr
  port    = 7471
}
endpoint "e" {
  count   = var.n
  address = listener.l.address
  port    = 70000
}
`})
	l := NewLoader()
	l.Validate = true
	cfg, diags := l.Load(dir, VarInputs{})
	// The body of a block whose count is unknown is still checked once.
	if len(diags) != 1 || diags[0].Summary != "Invalid port" {
		t.Fatalf("diags = %v", diags)
	}
	if _, ok := cfg.Variables["n"]; !ok || cfg.Variables["n"].Value.IsKnown() {
		t.Errorf("var.n = %#v, want unknown", cfg.Variables["n"].Value)
	}
	// Without validate mode the same configuration needs values; the
	// unknown count that follows is not reported a second time.
	_, diags = Load(dir, VarInputs{})
	if len(diags) != 3 || diags[0].Summary != "No value for required variable" ||
		diags[1].Summary != "No value for required variable" || diags[2].Summary != "Invalid port" {
		t.Fatalf("plan-mode diags = %v", diags)
	}
}

// A variable without a type takes a -var or RDMAFORM_VAR_ value as a
// string, as Terraform's does; with type = any it is an expression.
func TestUntypedVariableValuesAreStrings(t *testing.T) {
	src := "variable \"addr\" {\n  default = \"d\"\n}\nvariable \"anything\" {\n  type = any\n}\nlocals {\n  a = var.addr\n}\n"
	cfg, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(src)},
		VarInputs{Args: []VarArg{{Value: "addr=10.0.0.1"}, {Value: "anything=[1, 2]"}}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if v := cfg.Variables["addr"].Value; !v.RawEquals(cty.StringVal("10.0.0.1")) {
		t.Errorf("var.addr = %#v, want the string 10.0.0.1", v)
	}
	if v := cfg.Variables["anything"].Value; !v.Type().IsTupleType() {
		t.Errorf("var.anything = %#v, want a tuple", v)
	}
	_, diags = NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(src)},
		VarInputs{Args: []VarArg{{Value: "anything=hello world"}}})
	if !diags.HasErrors() || !strings.Contains(diags[0].Detail, `is not a value of type any: "hello world" is not a valid expression`) {
		t.Errorf("an invalid expression for type any: %v", diags)
	}
}

// optional(type, default) fills a missing attribute, in a default and in
// a given value; nullable = false makes a null value take the default.
func TestOptionalDefaultsAndNullable(t *testing.T) {
	src := `
variable "peer" {
  type = object({
    address = string
    port    = optional(number, 7471)
  })
  default = { address = "10.77.0.1" }
}
variable "given" {
  type = object({
    address = string
    port    = optional(number, 7000)
  })
}
variable "backlog" {
  type     = number
  default  = 1024
  nullable = false
}
`
	cfg, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(src)},
		VarInputs{Args: []VarArg{{Value: `given={ address = "10.0.0.2" }`}, {Value: "backlog=null"}}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for name, want := range map[string]string{"peer": "7471", "given": "7000"} {
		if p := cfg.Variables[name].Value.GetAttr("port"); p.IsNull() || p.AsBigFloat().String() != want {
			t.Errorf("var.%s.port = %#v, want %s", name, p, want)
		}
	}
	if b := cfg.Variables["backlog"].Value; b.IsNull() || b.AsBigFloat().String() != "1024" {
		t.Errorf("var.backlog = %#v, want its default 1024 for null", b)
	}
	_, diags = NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte("variable \"n\" {\n  type = number\n  nullable = false\n}\n")},
		VarInputs{Args: []VarArg{{Value: "n=null"}}})
	if !diags.HasErrors() || !strings.Contains(diags[0].Detail, "declared nullable = false") {
		t.Errorf("null for a non-nullable variable without a default: %v", diags)
	}
}

// *.auto.rdmavars.json and rdmaform.rdmavars.json load by themselves, as
// Terraform's *.auto.tfvars.json do.
func TestAutoLoadedJSONVariableFiles(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"main.rdma.hcl":          "variable \"p\" {\n  type = number\n}\nvariable \"q\" {\n  type = number\n}\n",
		"rdmaform.rdmavars.json": `{"q": 1}`,
		"w.auto.rdmavars.json":   `{"p": 8400}`,
		"a.auto.rdmavars":        "q = 2\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, diags := NewLoader().Load(dir, VarInputs{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if p := cfg.Variables["p"].Value; p.AsBigFloat().String() != "8400" {
		t.Errorf("var.p = %#v, want 8400 from w.auto.rdmavars.json", p)
	}
	if q := cfg.Variables["q"].Value; q.AsBigFloat().String() != "2" {
		t.Errorf("var.q = %#v, want 2 (a.auto.rdmavars after rdmaform.rdmavars.json)", q)
	}
}

func TestVarOptionWithoutName(t *testing.T) {
	_, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte("variable \"b\" {\n  default = 1\n}\n")},
		VarInputs{Args: []VarArg{{Value: "=x"}}})
	if !diags.HasErrors() || diags[0].Summary != "Invalid -var option" || !strings.Contains(diags[0].Detail, `"=x" is not correctly specified`) {
		t.Errorf("-var '=x': %v", diags)
	}
}

// A validation may use the other variables, as Terraform 1.9's; a
// reference to anything else is one error, not two.
func TestValidationUsesOtherVariables(t *testing.T) {
	src := `
variable "p" {
  type    = number
  default = 7000
}
variable "q" {
  type    = number
  default = 7001
  validation {
    condition     = var.q < var.p
    error_message = "q must be below p (${var.p})."
  }
}
`
	_, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(src)}, VarInputs{})
	if len(diags) != 1 || !strings.Contains(diags[0].Detail, "q must be below p (7000).") {
		t.Errorf("q over p: %v", diags)
	}
	if _, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(src)}, VarInputs{Args: []VarArg{{Value: "q=10"}}}); diags.HasErrors() {
		t.Errorf("q under p: %v", diags)
	}
	// A local too, as Terraform 1.9's, even one that uses the variable.
	withLocal := strings.Replace(src, "var.q < var.p", "var.q < local.limit", 1) + "locals {\n  limit = var.p - 1 + 0 * var.q\n}\n"
	_, diags = NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(withLocal)}, VarInputs{})
	if len(diags) != 1 || !strings.Contains(diags[0].Detail, "q must be below p (7000).") {
		t.Errorf("a local in a validation: %v", diags)
	}
	bad := strings.Replace(src, "var.q < var.p", "var.q < listener.l.port", 1) + "listener \"l\" {\n  address = \"10.77.0.1\"\n  port = 7471\n}\n"
	_, diags = NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(bad)}, VarInputs{})
	if len(diags) != 1 || diags[0].Summary != "Invalid reference in variable validation" || !strings.Contains(diags[0].Detail, "not listener") {
		t.Errorf("a listener in a validation: %v", diags)
	}
	// A misspelt variable is named as anywhere else.
	typo := strings.Replace(src, "var.q < var.p", "var.q < var.pp", 1)
	_, diags = NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(typo)}, VarInputs{})
	if len(diags) != 1 || !strings.Contains(diags[0].Summary+diags[0].Detail, `"pp"`) || !strings.Contains(diags[0].Detail, `Did you mean "p"?`) {
		t.Errorf("var.pp in a validation: %v", diags)
	}
}

func TestNullDefaultOfANonNullableVariable(t *testing.T) {
	_, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte("variable \"port\" {\n  type     = number\n  default  = null\n  nullable = false\n}\n")}, VarInputs{})
	if !diags.HasErrors() || !strings.Contains(diags[0].Detail, "A null default value is not valid when nullable = false.") {
		t.Errorf("%v", diags)
	}
}

// Variable files hold literal values, as Terraform's: a JSON file's
// strings are taken as written, templates included, and an HCL file may
// not call functions or refer to anything.
func TestVariableFilesAreLiteral(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"main.rdma.hcl":        "variable \"s\" {\n  type = string\n}\nvariable \"t\" {\n  type = list(string)\n}\n",
		"w.auto.rdmavars.json": `{"s": "pa$${word}", "t": ["${upper(\"x\")}", "x${def}y", "%{ if true }z%{ endif }"]}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, diags := NewLoader().Load(dir, VarInputs{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if s := cfg.Variables["s"].Value.AsString(); s != "pa$${word}" {
		t.Errorf("var.s = %q, want the JSON string as written", s)
	}
	var got []string
	for _, v := range cfg.Variables["t"].Value.AsValueSlice() {
		got = append(got, v.AsString())
	}
	if want := []string{`${upper("x")}`, "x${def}y", "%{ if true }z%{ endif }"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("var.t = %q, want %q", got, want)
	}

	if err := os.WriteFile(filepath.Join(dir, "w.auto.rdmavars.json"), []byte(`{"s": "a", "t": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "x.auto.rdmavars"), []byte("s = upper(\"a\")\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags = NewLoader().Load(dir, VarInputs{})
	if !diags.HasErrors() || diags[0].Summary != "Function calls not allowed" || diags[0].Subject == nil || diags[0].Subject.Filename != filepath.Join(dir, "x.auto.rdmavars") {
		t.Errorf("a function call in a variables file: %v", diags)
	}
}

// A value that does not fit deep inside says where, and the error points
// at the variable's declaration when the value has no source of its own.
func TestVariableValueErrorSaysWhere(t *testing.T) {
	dir := writeDir(t, map[string]string{"main.rdma.hcl": `variable "cfg" {
  type = object({
    qp = optional(object({ send = optional(number, 16) }), {})
  })
  default = {}
}
`})
	_, diags := Load(dir, VarInputs{Args: VarArgs{{Value: `cfg={qp={send="many"}}`}}})
	if len(diags) != 1 || diags[0].Detail != `The value for var.cfg from -var does not fit its type: attribute "qp", attribute "send": a number is required.` {
		t.Fatalf("diags = %v", diags)
	}
	if s := diags[0].Subject; s == nil || s.Start.Line != 1 {
		t.Errorf("subject = %v, want the declaration on line 1", s)
	}
}

// A value that does not fit an object type says where in it, whether it
// is the default or comes from -var, a -var-file or the environment:
// `attribute "a": a number is required`, and the whole path deeper down
// (Terraform 1.11's words for a nested path).
func TestTypeErrorsSayWhere(t *testing.T) {
	const decl = `variable "o" {
  type = object({ a = number, b = optional(object({ c = list(number) })) })
%s}
`
	for _, c := range []struct {
		name, def, value, file, env, want string
	}{
		{name: "default", def: `  default = { a = "x" }` + "\n",
			want: `This default value is not compatible with the variable's type constraint: attribute "a": a number is required.`},
		{name: "deep default", def: `  default = { a = 1, b = { c = [1, "y"] } }` + "\n",
			want: `This default value is not compatible with the variable's type constraint: attribute "b", attribute "c", element 1: a number is required.`},
		{name: "default of a wrong type", def: `  default = { a = true }` + "\n",
			want: `This default value is not compatible with the variable's type constraint: attribute "a": a number is required, not a bool.`},
		{name: "default missing an attribute", def: `  default = { b = {} }` + "\n",
			want: `This default value is not compatible with the variable's type constraint: attribute "a" is required.`},
		{name: "default not an object", def: `  default = [1]` + "\n",
			want: `This default value is not compatible with the variable's type constraint: an object with attributes "a" and "b" is required, not a list of 1 element.`},
		{name: "deep default of a wrong type", def: `  default = { a = 1, b = { c = [[1]] } }` + "\n",
			want: `This default value is not compatible with the variable's type constraint: attribute "b", attribute "c", element 0: a number is required, not a list of 1 element.`},
		{name: "-var of a wrong type", value: `o={ a = [] }`,
			want: `The value for var.o from -var does not fit its type: attribute "a": a number is required, not an empty list.`},
		{name: "-var", value: `o={ a = "x" }`,
			want: `The value for var.o from -var does not fit its type: attribute "a": a number is required.`},
		{name: "-var-file", file: `o = { a = 1, b = { c = ["y"] } }`,
			want: `does not fit its type: attribute "b", attribute "c", element 0: a number is required.`},
		{name: "environment", env: `{ a = "x" }`,
			want: `The value for var.o from environment variable RDMAFORM_VAR_o does not fit its type: attribute "a": a number is required.`},
	} {
		files := map[string]string{"main.rdma.hcl": fmt.Sprintf(decl, c.def)}
		if c.file != "" {
			files["x.rdmavars"] = c.file
		}
		dir := writeDir(t, files)
		in := VarInputs{}
		if c.value != "" {
			in.Args = VarArgs{{Value: c.value}}
		}
		if c.file != "" {
			in.Args = VarArgs{{File: true, Value: filepath.Join(dir, "x.rdmavars")}}
		}
		if c.env != "" {
			in.Env = []string{EnvPrefix + "o=" + c.env}
		}
		_, diags := Load(dir, in)
		if len(diags) != 1 || !strings.Contains(diags[0].Detail, c.want) {
			t.Errorf("%s: diags = %v, want one containing %q", c.name, diags, c.want)
		}
	}
}
