package config

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// Terraform's answers for the functions whose go-cty namesakes differ,
// and for those go-cty lacks.
func TestTerraformsOwnFunctions(t *testing.T) {
	ctx := &hcl.EvalContext{Functions: Functions()}
	for _, c := range []struct{ expr, want string }{
		{`index([10, 20, 30], 20)`, `1`},
		{`index(["a", "b"], "b")`, `1`},
		{`7000 + index(["x", "y"], "y")`, `7001`},
		{`replace("a1b2", "/[0-9]/", "")`, `"ab"`},
		{`replace("a.b.c", ".", "-")`, `"a-b-c"`},
		{`replace("rxe0", "/rxe(\\d)/", "mlx5_$1")`, `"mlx5_0"`},
		{`coalesce("", "x")`, `"x"`},
		{`coalesce(null, "", "y", "z")`, `"y"`},
		{`lookup({a = 1}, "a")`, `1`},
		{`lookup({a = 1}, "b", 7)`, `7`},
		{`lookup(tomap({a = "x"}), "a", "d")`, `"x"`},
		{`transpose({a = ["1", "2"], b = ["2"]})`, `{"1":["a"],"2":["a","b"]}`},
		{`matchkeys(["i-1", "i-2", "i-3"], ["a", "b", "a"], ["a"])`, `["i-1","i-3"]`},
		{`cidrsubnets("10.1.0.0/16", 4, 4)`, `["10.1.0.0/20","10.1.16.0/20"]`},
		{`urlencode("a b&c")`, `"a+b%26c"`},
		{`length(sha256("rdma"))`, `64`},
		{`issensitive(sensitive("s"))`, `true`},
		{`issensitive("s")`, `false`},
		{`yamldecode("a: 1")`, `{"a":1}`},
	} {
		checkExpr(t, ctx, c.expr, c.want)
	}
	for _, c := range []struct{ expr, err string }{
		{`index([5, 6, 7], 1)`, "item not found"},
		{`index("abc", "a")`, "must be a list or tuple"},
		{`lookup({a = 1}, "b")`, `the given key "b" does not exist`},
		{`replace("a", "/(/", "")`, "invalid regular expression"},
		{`coalesce("", null)`, "no non-null, non-empty-string arguments"},
	} {
		e, _ := hclsyntax.ParseExpression([]byte(c.expr), "f.hcl", hcl.InitialPos)
		if _, diags := e.Value(ctx); !diags.HasErrors() || !strings.Contains(diags.Error(), c.err) {
			t.Errorf("%s: %v, want an error with %q", c.expr, diags, c.err)
		}
	}
}

// Unknown arguments give unknown results; index compares as == does.
func TestTerraformsOwnFunctionsWithUnknowns(t *testing.T) {
	ctx := &hcl.EvalContext{Functions: Functions(), Variables: map[string]cty.Value{"u": cty.UnknownVal(cty.String)}}
	for _, x := range []string{`transpose({l = [u]})`, `matchkeys(["a", "b"], [u, "k"], ["k"])`, `matchkeys(["a", "b"], ["j", "k"], [u])`, `issensitive(u)`} {
		e, _ := hclsyntax.ParseExpression([]byte(x), "f.hcl", hcl.InitialPos)
		v, diags := e.Value(ctx)
		if diags.HasErrors() || v.IsKnown() {
			t.Errorf("%s = %#v, %v; want unknown", x, v, diags)
		}
	}
	e, _ := hclsyntax.ParseExpression([]byte(`index(["1", "2"], 2)`), "f.hcl", hcl.InitialPos)
	if _, diags := e.Value(ctx); !diags.HasErrors() || !strings.Contains(diags.Error(), "item not found") {
		t.Errorf(`index(["1", "2"], 2): %v, want item not found`, diags)
	}
}

// checkExpr evaluates expr in ctx and compares its value, unmarked, in
// cty's JSON form with want.
func checkExpr(t *testing.T, ctx *hcl.EvalContext, expr, want string) {
	t.Helper()
	e, diags := hclsyntax.ParseExpression([]byte(expr), "f.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("%s: %v", expr, diags)
	}
	v, diags := e.Value(ctx)
	if diags.HasErrors() {
		t.Errorf("%s: %v", expr, diags)
		return
	}
	v, _ = v.UnmarkDeep()
	raw, err := ctyjson.Marshal(v, v.Type())
	if got := string(raw); err != nil || got != want {
		t.Errorf("%s = %s, want %s", expr, got, want)
	}
}
