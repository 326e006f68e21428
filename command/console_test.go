package command

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestConsole(t *testing.T) {
	dir := t.TempDir()
	src := `variable "n" {
  type    = number
  default = 2
}
listener "l" {
  address = "10.77.0.1"
  port    = 7471 + var.n
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.rdma.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	var out, errb bytes.Buffer
	in := strings.NewReader("listener.l.port\nlistener.l.id\ncidrhost(\"10.77.0.0/24\", var.n)\nlistener.nope.port\nexit\nvar.n\n")
	code := run([]string{"console", "-no-color", "-var", "n=3"}, Meta{In: in, Out: &out, Err: &errb})
	if code != 1 {
		t.Errorf("code %d, want 1 (one expression failed)", code)
	}
	if want := "7474\n(known after apply)\n\"10.77.0.3\"\n"; out.String() != want {
		t.Errorf("out = %q, want %q", out.String(), want)
	}
	if !strings.Contains(errb.String(), "Error: Reference to undeclared listener") || !strings.Contains(errb.String(), "listener.nope.port") {
		t.Errorf("stderr = %q", errb.String())
	}
}

// As terraform console does, values derived from a sensitive variable (or
// sensitive()) print as (sensitive value), inside collections too, and
// nonsensitive() shows them.
func TestConsoleHidesSensitiveValues(t *testing.T) {
	dir := t.TempDir()
	src := `variable "secret" {
  type      = string
  default   = "tok-42"
  sensitive = true
}
locals {
  pd = "peer=${var.secret}"
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.rdma.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	var out, errb bytes.Buffer
	in := strings.NewReader("var.secret\nlocal.pd\nupper(var.secret)\n{a = var.secret, b = 1}\nsensitive(3)\nnonsensitive(var.secret)\n")
	if code := run([]string{"console", "-no-color"}, Meta{In: in, Out: &out, Err: &errb}); code != 0 {
		t.Fatalf("code %d: %s", code, errb.String())
	}
	want := "(sensitive value)\n(sensitive value)\n(sensitive value)\n{\n  \"a\" = (sensitive value)\n  \"b\" = 1\n}\n(sensitive value)\n\"tok-42\"\n"
	if out.String() != want {
		t.Errorf("out = %q, want %q", out.String(), want)
	}
}

// An attribute of an object computed from a sensitive value (a variable,
// a for_each map's value) is hidden too, as plan hides it, when the
// state does not record the object yet.
func TestConsoleHidesSensitiveAttributesOfObjects(t *testing.T) {
	dir := t.TempDir()
	src := `variable "pw" {
  type      = string
  default   = "hunter2"
  sensitive = true
}

variable "m" {
  type      = map(string)
  default   = { a = "v-secret" }
  sensitive = true
}

listener "l" {
  address = "10.0.0.1"
  port    = 7000
  qp {}
  accept {
    private_data = var.pw
  }
}

endpoint "e" {
  for_each = { for k in ["a"] : k => k }
  address  = "10.0.0.1"
  port     = 7000
  connect {
    private_data = var.m[each.key]
  }
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.rdma.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	var out, errb bytes.Buffer
	in := strings.NewReader("listener.l.accept.private_data\nupper(listener.l.accept.private_data)\nendpoint.e[\"a\"].connect.private_data\nlistener.l.port\n")
	if code := run([]string{"console", "-no-color"}, Meta{In: in, Out: &out, Err: &errb}); code != 0 {
		t.Fatalf("code %d: %s", code, errb.String())
	}
	want := "(sensitive value)\n(sensitive value)\n(sensitive value)\n7000\n"
	if out.String() != want || strings.Contains(out.String()+errb.String(), "hunter2") || strings.Contains(out.String(), "v-secret") {
		t.Errorf("out = %q, want %q", out.String(), want)
	}
}

// As terraform console: no configuration is needed, an expression may
// span lines while its brackets or heredoc are open, and collections say
// their type.
func TestConsoleWithoutConfigurationAndOverLines(t *testing.T) {
	t.Chdir(t.TempDir())
	var out, errb bytes.Buffer
	in := strings.NewReader("[\n  1,\n  2\n]\ntoset([\"b\", \"a\"])\ntomap({a = 1})\n<<EOT\nx\ny\nEOT\ncidrsubnets(\"10.1.0.0/16\", 8)\n")
	if code := run([]string{"console", "-no-color"}, Meta{In: in, Out: &out, Err: &errb}); code != 0 {
		t.Fatalf("code %d\n%s\n%s", code, out.String(), errb.String())
	}
	want := "[\n  1,\n  2,\n]\ntoset([\n  \"a\",\n  \"b\",\n])\ntomap({\n  \"a\" = 1\n})\n<<EOT\nx\ny\nEOT\ntolist([\n  \"10.1.0.0/24\",\n])\n"
	if out.String() != want {
		t.Errorf("out =\n%s\nwant\n%s", out.String(), want)
	}
}

// A failing precondition is plan's business: the console still evaluates.
func TestConsoleDespiteAFailingPrecondition(t *testing.T) {
	dir := t.TempDir()
	src := "listener \"l\" {\n  address = \"10.77.0.1\"\n  port    = 7471\n  lifecycle {\n    precondition {\n      condition     = 7471 > 8000\n      error_message = \"port too low\"\n    }\n  }\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "main.rdma.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	var out, errb bytes.Buffer
	code := run([]string{"console"}, Meta{In: strings.NewReader("listener.l.port\n"), Out: &out, Err: &errb})
	if code != 0 || strings.TrimSpace(out.String()) != "7471" {
		t.Errorf("console: exit %d\n%s\n%s", code, out.String(), errb.String())
	}
}

// As terraform console, objects read as the state records them: the QP
// numbers apply recorded, not (known after apply); an object not applied
// still reads from the configuration.
func TestConsoleReadsTheState(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	dir := planDir(t, planTestConfig)
	if code, out, errs := meta.cmd(t, dir, "", "plan"); code != 0 {
		t.Fatalf("plan: %d\n%s%s", code, out, errs)
	}
	code, out, errs := meta.cmd(t, dir, "endpoint.client[0].qp_num\nendpoint.client[*].port\n", "console")
	if code != 0 || out != "(known after apply)\n[\n  7471,\n  7471,\n]\n" {
		t.Errorf("console before apply: %d %q %q", code, out, errs)
	}
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve"); code != 0 {
		t.Fatalf("apply: %d\n%s%s", code, out, errs)
	}
	code, out, errs = meta.cmd(t, dir, "endpoint.client[0].qp_num\nendpoint.client[1].qp_num != endpoint.client[0].qp_num\nlistener.loop.id\n", "console")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 3 || lines[0] == "(known after apply)" || lines[1] != "true" || lines[2] != `"listener.loop"` {
		t.Errorf("console after apply: %d %q %q", code, out, errs)
	}
}

// path.module and path.root are "." (the configuration's directory, which
// -chdir makes the working one) and path.cwd the directory rdmaform was
// started in, before -chdir, as in Terraform; file() reads beside the
// configuration through path.module.
func TestConsolePathValues(t *testing.T) {
	start := t.TempDir()
	sub := filepath.Join(start, "cfg")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{"main.rdma.hcl": "locals {\n  hello = file(\"${path.module}/hello.txt\")\n}\n", "hello.txt": "hi"} {
		if err := os.WriteFile(filepath.Join(sub, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(start)
	var out, errb bytes.Buffer
	in := strings.NewReader("path.module\npath.root\npath.cwd\nlocal.hello\n")
	if code := run([]string{"-chdir=cfg", "console", "-no-color"}, Meta{In: in, Out: &out, Err: &errb}); code != 0 {
		t.Fatalf("code %d: %s", code, errb.String())
	}
	if want := "\".\"\n\".\"\n\"" + start + "\"\n\"hi\"\n"; out.String() != want {
		t.Errorf("out = %q, want %q", out.String(), want)
	}
}

// As terraform console, and as the configuration's own expressions, the
// console refers only to what the configuration declares: an undeclared
// variable, local value or block, or an attribute no block has, is named
// as such (not "This object does not have an attribute"), and try() does
// not hide it; what is declared evaluates as before.
func TestConsoleUndeclaredReferences(t *testing.T) {
	dir := t.TempDir()
	src := "variable \"v\" {\n  default = 1\n}\nlocals {\n  l = 2\n}\nlistener \"zz\" {\n  address = \"10.77.0.1\"\n  port    = 7471\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "main.rdma.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	var out, errb bytes.Buffer
	in := strings.NewReader("var.nope\nlocal.nope\ntry(local.nope, \"fallback\")\nlistener.zy.port\ntry(listener.zz.nope, 3)\nvar.v + local.l\n[for x in [1] : x + listener.zz.port]\n")
	if code := run([]string{"console", "-no-color"}, Meta{In: in, Out: &out, Err: &errb}); code != 1 {
		t.Errorf("code %d, want 1", code)
	}
	if want := "3\n[\n  7472,\n]\n"; out.String() != want {
		t.Errorf("out = %q, want %q", out.String(), want)
	}
	for _, want := range []string{
		"Error: Reference to undeclared input variable\n\n  on <console-input-1>",
		"   1: var.nope\n\nAn input variable named \"nope\" is not declared.",
		"Error: Reference to undeclared local value\n\n  on <console-input-2>",
		"Error: Reference to undeclared local value\n\n  on <console-input-3>",
		"   1: try(local.nope, \"fallback\")\n\nA local value named \"nope\" is not declared.",
		"   1: listener.zy.port\n\nA listener named \"zy\" is not declared in this configuration. Did you mean \"zz\"?",
		"Error: Unsupported attribute\n\n  on <console-input-5>",
		"   1: try(listener.zz.nope, 3)\n\nA listener has no attribute named \"nope\".",
	} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb.String())
		}
	}
	if strings.Contains(errb.String(), "This object does not have an attribute") {
		t.Errorf("stderr = %s", errb.String())
	}
}

// As terraform console: a variable without a value reads as unknown, and so
// does a block whose count it decides; the rest evaluates.
func TestConsoleWithoutAVariablesValue(t *testing.T) {
	dir := t.TempDir()
	src := `variable "n" {
  type = number
}
listener "l" {
  address = "10.77.0.1"
  port    = 7471
}
endpoint "e" {
  count   = var.n
  address = listener.l.address
  port    = listener.l.port
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.rdma.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	var out, errb bytes.Buffer
	in := strings.NewReader("1+1\nvar.n\nlength(endpoint.e)\nendpoint.e[0].port\nlistener.l.port\n")
	if code := run([]string{"console", "-no-color"}, Meta{In: in, Out: &out, Err: &errb}); code != 0 {
		t.Fatalf("code %d\n%s", code, errb.String())
	}
	if want := "2\n(known after apply)\n(known after apply)\n(known after apply)\n7471\n"; out.String() != want {
		t.Errorf("out = %q, want %q", out.String(), want)
	}
}

// The console calls the functions Terraform 1.11's console does, with
// its type(x), which prints x's type as terraform console prints it;
// plantimestamp() is the time the console loaded; timestamp() is refused
// with why (file:line:col of the input).
func TestConsoleFunctionsAndType(t *testing.T) {
	t.Chdir(t.TempDir())
	var out, errb bytes.Buffer
	in := strings.NewReader("type(1)\ntype({a=1})\nbase64gzip(\"test\")\ntextdecodebase64(\"SABlAGwAbABvACAAVwBvAHIAbABkAA==\", \"UTF-16LE\")\nplantimestamp()\n[type(1)]\ntimestamp()\n")
	if code := run([]string{"console", "-no-color"}, Meta{In: in, Out: &out, Err: &errb}); code != 1 {
		t.Errorf("code %d, want 1 (two expressions failed)", code)
	}
	lines := strings.SplitAfter(out.String(), "\n")
	want := "number\nobject({\n    a: number,\n})\n\"H4sIAAAAAAAA/ypJLS4BAAAA//8BAAD//wx+f9gEAAAA\"\n\"Hello World\"\n"
	if got := strings.Join(lines[:min(len(lines), 6)], ""); got != want {
		t.Errorf("out = %q, want %q", got, want)
	}
	if len(lines) < 7 || !regexp.MustCompile(`^"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"\n$`).MatchString(lines[6]) {
		t.Errorf("plantimestamp() printed %q, want an RFC 3339 time", lines[6:])
	}
	for _, w := range []string{"Error: Invalid use of type function", `The console-only "type" function cannot be used as part of an expression`,
		`on <console-input-7> line 1:`, `Call to function "timestamp" failed: rdmaform has no timestamp() on purpose`, "Use plantimestamp()"} {
		if !strings.Contains(errb.String(), w) {
			t.Errorf("stderr lacks %q:\n%s", w, errb.String())
		}
	}

	// With a configuration too.
	if err := os.WriteFile("main.rdma.hcl", []byte("variable \"hosts\" {\n  default = {a = 1}\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"console", "-no-color"}, Meta{In: strings.NewReader("type(var.hosts)\n"), Out: &out, Err: &errb}); code != 0 || out.String() != "object({\n    a: number,\n})\n" {
		t.Errorf("type(var.hosts): code %d, out %q, stderr:\n%s", code, out.String(), errb.String())
	}
}
