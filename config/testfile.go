package config

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// TestSuffix ends the names of rdmaform test's files, as .tftest.hcl
// ends terraform test's.
const TestSuffix = ".rdmatest.hcl"

// TestFile is one test file: variables for all its runs, then runs that
// plan or apply the configuration and assert on the result, in order,
// against one state of their own.
type TestFile struct {
	Path      string
	Variables hcl.Attributes // the file's variables block (nil: none)
	Runs      []*TestRun
}

// TestRun is one run block.
type TestRun struct {
	Name string
	// Command is "apply" (the default) or "plan".
	Command        string
	Variables      hcl.Attributes // the run's variables block (nil: none)
	Asserts        []*TestAssert
	ExpectFailures []hcl.Traversal
	DeclRange      hcl.Range
}

// TestAssert is one assert block.
type TestAssert struct {
	Condition    hcl.Expression
	ErrorMessage hcl.Expression
	DeclRange    hcl.Range
}

var (
	testFileSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{
		{Type: "variables"}, {Type: "run", LabelNames: []string{"name"}},
	}}
	testRunSchema = &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{{Name: "command"}, {Name: "expect_failures"}},
		Blocks:     []hcl.BlockHeaderSchema{{Type: "variables"}, {Type: "assert"}},
	}
	testAssertSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
		{Name: "condition", Required: true}, {Name: "error_message", Required: true},
	}}
)

// ParseTestFile reads a test file with l's parser, so that its
// diagnostics quote it as they quote the configuration.
func (l *Loader) ParseTestFile(path string) (*TestFile, hcl.Diagnostics) {
	f, diags := l.parser.ParseHCLFile(path)
	if diags.HasErrors() {
		return nil, diags
	}
	tf := &TestFile{Path: path}
	content, d := f.Body.Content(testFileSchema)
	diags = append(diags, d...)
	seenRuns := map[string]hcl.Range{}
	var varsAt *hcl.Range
	for _, b := range content.Blocks {
		switch b.Type {
		case "variables":
			if varsAt != nil {
				diags = append(diags, duplicateDiag("variables block", b.DefRange, *varsAt))
				continue
			}
			varsAt = b.DefRange.Ptr()
			attrs, d := b.Body.JustAttributes()
			diags = append(diags, d...)
			tf.Variables = attrs
		case "run":
			run, d := decodeTestRun(b)
			diags = append(diags, d...)
			if first, dup := seenRuns[run.Name]; dup {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate run block",
					Detail: fmt.Sprintf("A run block named %q was already declared at %s. Each run in a file needs its own name.", run.Name, first), Subject: b.LabelRanges[0].Ptr()})
				continue
			}
			seenRuns[run.Name] = b.DefRange
			tf.Runs = append(tf.Runs, run)
		}
	}
	return tf, diags
}

func decodeTestRun(b *hcl.Block) (*TestRun, hcl.Diagnostics) {
	run := &TestRun{Name: b.Labels[0], Command: "apply", DeclRange: b.DefRange}
	content, diags := b.Body.Content(testRunSchema)
	if a := content.Attributes["command"]; a != nil {
		// A keyword, as Terraform's command = plan, or a string.
		word := hcl.ExprAsKeyword(a.Expr)
		if word == "" {
			if v, d := a.Expr.Value(nil); !d.HasErrors() && v.Type().FriendlyName() == "string" && v.IsKnown() && !v.IsNull() {
				word = v.AsString()
			}
		}
		switch word {
		case "apply", "plan":
			run.Command = word
		default:
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid run command",
				Detail: "command is apply (the default) or plan.", Subject: a.Expr.Range().Ptr()})
		}
	}
	if a := content.Attributes["expect_failures"]; a != nil {
		exprs, d := hcl.ExprList(a.Expr)
		diags = append(diags, d...)
		for _, e := range exprs {
			tr, d := hcl.AbsTraversalForExpr(e)
			if d.HasErrors() {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid expect_failures entry",
					Detail: "Each entry names an object whose condition is expected to fail: var.NAME, output.NAME, listener.NAME, endpoint.NAME or check.NAME.", Subject: e.Range().Ptr()})
				continue
			}
			run.ExpectFailures = append(run.ExpectFailures, tr)
		}
	}
	var varsAt *hcl.Range
	for _, nb := range content.Blocks {
		switch nb.Type {
		case "variables":
			if varsAt != nil {
				diags = append(diags, duplicateDiag("variables block", nb.DefRange, *varsAt))
				continue
			}
			varsAt = nb.DefRange.Ptr()
			attrs, d := nb.Body.JustAttributes()
			diags = append(diags, d...)
			run.Variables = attrs
		case "assert":
			ac, d := nb.Body.Content(testAssertSchema)
			diags = append(diags, d...)
			if ac.Attributes["condition"] == nil || ac.Attributes["error_message"] == nil {
				continue
			}
			run.Asserts = append(run.Asserts, &TestAssert{Condition: ac.Attributes["condition"].Expr, ErrorMessage: ac.Attributes["error_message"].Expr, DeclRange: nb.DefRange})
		}
	}
	if len(run.Asserts) == 0 && len(run.ExpectFailures) == 0 && !diags.HasErrors() {
		// Terraform accepts it (the run then checks only that the command
		// succeeds); said, since it is more often an assert forgotten.
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Run without assertions",
			Detail: fmt.Sprintf("run %q has no assert block: it passes whenever its %s succeeds. Add an assert block to check the result.", run.Name, run.Command), Subject: b.DefRange.Ptr()})
	}
	return run, diags
}

// IsTestFile reports whether name is a test file's.
func IsTestFile(name string) bool { return strings.HasSuffix(name, TestSuffix) }
