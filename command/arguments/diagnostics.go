package arguments

import "github.com/hashicorp/hcl/v2"

// Diagnostics are the command line's problems: HCL's, without a source
// range, so that they are shown as the configuration's are.
type Diagnostics = hcl.Diagnostics

func errDiag(summary, detail string) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail}
}

// helpAfter marks a diagnostic the command's help follows, as some
// commands have always shown it after their argument errors.
type helpAfter struct{}

func errDiagHelp(summary string) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Extra: helpAfter{}}
}

// HelpAfter reports whether the command's help is shown after d.
func HelpAfter(d *hcl.Diagnostic) bool {
	_, ok := d.Extra.(helpAfter)
	return ok
}
