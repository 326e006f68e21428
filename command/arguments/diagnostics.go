package arguments

import "github.com/hashicorp/hcl/v2"

// Diagnostics are the command line's problems: HCL's, without a source
// range, so that they are shown as the configuration's are.
type Diagnostics = hcl.Diagnostics

func errDiag(summary, detail string) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail}
}
