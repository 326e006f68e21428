package config

import (
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
)

// plantimestamp() is the plan's time, RFC 3339 in UTC, the same for every
// call in one configuration and known while planning, as Terraform 1.11's
// (its documentation's example: 2018-05-13T07:44:12Z). The loader's time
// is the one a saved plan records for its apply.
func TestPlanTimestamp(t *testing.T) {
	src := map[string][]byte{"main.rdma.hcl": []byte(`locals {
  a = plantimestamp()
  b = "made at ${plantimestamp()}"
}
output "at" {
  value = plantimestamp()
}
`)}
	l := NewLoader()
	l.PlanTimestamp = time.Date(2018, 5, 13, 9, 44, 12, 500, time.FixedZone("CEST", 2*3600))
	cfg, diags := l.LoadSources(src, VarInputs{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if got := cfg.Locals["a"]; !got.RawEquals(cty.StringVal("2018-05-13T07:44:12Z")) {
		t.Errorf("local.a = %#v, want the plan's time in UTC", got)
	}
	if got := cfg.Locals["b"]; !got.RawEquals(cty.StringVal("made at 2018-05-13T07:44:12Z")) {
		t.Errorf("local.b = %#v", got)
	}
	if got := cfg.PlanTimestamp; !got.Equal(time.Date(2018, 5, 13, 7, 44, 12, 0, time.UTC)) {
		t.Errorf("Config.PlanTimestamp = %v, want the loader's, in whole seconds", got)
	}

	// Without a time given, the time of the load, known.
	before := time.Now().UTC().Truncate(time.Second)
	cfg, diags = NewLoader().LoadSources(src, VarInputs{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	at, err := time.Parse(time.RFC3339, cfg.Locals["a"].AsString())
	if err != nil || at.Before(before) || !at.Equal(cfg.PlanTimestamp) {
		t.Errorf("local.a = %v (%v), want the load's time %v", cfg.Locals["a"], err, cfg.PlanTimestamp)
	}

	// Where nothing is planned (the shared table: templates), unknown.
	v, d := mustParse(t, "plantimestamp()").Value(&hcl.EvalContext{Functions: Functions()})
	if d.HasErrors() || v.IsKnown() || v.Type() != cty.String {
		t.Errorf("plantimestamp() without a plan = %#v, %v; want an unknown string", v, d)
	}
}

// timestamp() and uuid() are absent on purpose, type() is the console's:
// a configuration calling them is told why and what to use instead, at
// the call (file:line:col). Terraform 1.11 has them (timestamp and uuid
// unknown until apply, type in its console only).
func TestAbsentFunctionsSayWhy(t *testing.T) {
	for _, c := range []struct{ call, want string }{
		{`timestamp()`, `rdmaform has no timestamp() on purpose: its value would be new at every apply, so every plan would change (replace) the objects using it and cut their live connections. Use plantimestamp()`},
		{`uuid()`, `rdmaform has no uuid() on purpose`},
		{`type(1)`, `the type function is only available in rdmaform console`},
	} {
		src := "locals {\n  n = 1\n  t = \"at ${" + c.call + "}\"\n}\n"
		_, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(src)}, VarInputs{})
		if len(diags) != 1 {
			t.Errorf("%s: %v, want one diagnostic", c.call, diags)
			continue
		}
		d := diags[0]
		if !strings.Contains(d.Detail, c.want) || d.Subject == nil || d.Subject.Filename != "main.rdma.hcl" || d.Subject.Start.Line != 3 || d.Subject.Start.Column != 13 {
			t.Errorf("%s: %s %v: %s, want %q at main.rdma.hcl:3:13", c.call, d.Summary, d.Subject, d.Detail, c.want)
		}
		if strings.Contains(d.Detail, "..") {
			t.Errorf("%s: doubled period in %q", c.call, d.Detail)
		}
	}
	for _, name := range []string{"timestamp", "uuid", "type"} {
		if _, ok := Offered()[name]; ok {
			t.Errorf("Offered lists %s, which a configuration cannot call", name)
		}
	}
}

// The console's type(value) is the value's type, printed as Terraform's
// console prints it.
func TestConsoleTypeFormat(t *testing.T) {
	l := NewLoader()
	l.Console = true
	cfg, diags := l.LoadSources(map[string][]byte{"main.rdma.hcl": nil}, VarInputs{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for _, c := range []struct{ expr, want string }{
		{`type(1)`, "number"},
		{`type("a")`, "string"},
		{`type(null)`, "dynamic"},
		{`type({a = 1})`, "object({\n    a: number,\n})"},
		{`type(["a", 1])`, "tuple([\n    string,\n    number,\n])"},
		{`type(tolist(["a"]))`, "list(string)"},
		{`type(tomap({a = {b = true}}))`, "map(\n    object({\n        b: bool,\n    }),\n)"},
		{`type({})`, "object({})"},
	} {
		v, d := cfg.EvalWith(mustParse(t, c.expr), func(addrs.Instance) (cty.Value, bool) { return cty.NilVal, false })
		ty, ok, inside := ConsoleType(v)
		if d.HasErrors() || !ok || inside {
			t.Errorf("%s: %#v %v", c.expr, v, d)
			continue
		}
		if got := FormatType(ty); got != c.want {
			t.Errorf("%s printed\n%s\nwant\n%s", c.expr, got, c.want)
		}
	}
	v, _ := cfg.EvalWith(mustParse(t, `[type(1)]`), func(addrs.Instance) (cty.Value, bool) { return cty.NilVal, false })
	if _, ok, inside := ConsoleType(v); ok || !inside {
		t.Errorf("[type(1)]: ok %v inside %v, want a type inside", ok, inside)
	}
}

func mustParse(t *testing.T, src string) hclsyntax.Expression {
	t.Helper()
	e, diags := hclsyntax.ParseExpression([]byte(src), "t.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return e
}
