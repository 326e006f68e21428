package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

func parseTestSource(t *testing.T, src string) (*TestFile, hcl.Diagnostics) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "main"+TestSuffix)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return NewLoader().ParseTestFile(p)
}

func TestParseTestFile(t *testing.T) {
	f, diags := parseTestSource(t, `variables {
  a = 1
}

run "one" {
  command = plan
  variables {
    b = "x"
  }
  assert {
    condition     = true
    error_message = "m"
  }
  expect_failures = [var.a, check.c]
}

run "two" {
  command = "apply"
  assert {
    condition     = false
    error_message = "m"
  }
}
`)
	if diags.HasErrors() || len(f.Runs) != 2 {
		t.Fatalf("%v", diags)
	}
	one, two := f.Runs[0], f.Runs[1]
	if one.Name != "one" || one.Command != "plan" || len(one.Asserts) != 1 || len(one.ExpectFailures) != 2 || one.Variables["b"] == nil || f.Variables["a"] == nil {
		t.Fatalf("%+v", one)
	}
	if two.Command != "apply" {
		t.Fatalf("%+v", two)
	}
}

func TestParseTestFileErrors(t *testing.T) {
	for _, c := range []struct{ name, src, want, at string }{
		{"duplicate run", "run \"a\" {\n  expect_failures = [var.x]\n}\nrun \"a\" {\n  expect_failures = [var.x]\n}\n", "Duplicate run block", ":4,5-8"},
		{"two variables blocks", "variables {}\nvariables {}\n", "Duplicate variables block", ":2,1-10"},
		{"bad expect_failures", "run \"a\" {\n  expect_failures = [var.x + 1]\n}\n", "Invalid expect_failures entry", ":2,22-31"},
		{"assert without message", "run \"a\" {\n  assert {\n    condition = true\n  }\n}\n", "Missing required argument", ":2,10-10"},
		{"unknown argument", "run \"a\" {\n  plan_options {}\n}\n", "Unsupported block type", ":2,3-15"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, diags := parseTestSource(t, c.src)
			if !diags.HasErrors() || !strings.Contains(diags.Error(), c.want) || !strings.Contains(diags.Error(), c.at) {
				t.Fatalf("want %q at %q, got %v", c.want, c.at, diags)
			}
		})
	}
}

func TestCheckTestRefsOfTheLiveView(t *testing.T) {
	cfg, diags := NewLoader().LoadSources(map[string][]byte{"main" + HCLSuffix: []byte(`
listener "l" {
  address = "10.77.0.1"
  port    = 7471
}
endpoint "e" {
  count   = 2
  address = listener.l.address
  port    = listener.l.port
}
output "p" {
  value = listener.l.port
}
`)}, VarInputs{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for src, want := range map[string]string{
		`live.endpoint.e[0].probe.max_ms < 1 && output.p == 7471`: "",
		`live.endpoint.e[0].probe.rtt < 1`:                        `no attribute named "rtt"`,
		`live.endpoint.e[0].stauts == "x"`:                        `Did you mean "status"?`,
		`live.endpoint.f[0].status == "x"`:                        `endpoint named "f"`,
		`live.endpoint`:                                           "live.KIND.NAME",
		`output.q`:                                                `undeclared output`,
	} {
		expr, d := hclsyntax.ParseExpression([]byte(src), "t.hcl", hcl.InitialPos)
		if d.HasErrors() {
			t.Fatal(d)
		}
		got := cfg.CheckTestRefs(expr)
		if want == "" && len(got) > 0 || want != "" && !strings.Contains(got.Error(), want) {
			t.Errorf("%s: want %q, got %v", src, want, got)
		}
	}
}
