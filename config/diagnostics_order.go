package config

import (
	"sort"

	"github.com/hashicorp/hcl/v2"
)

// SortDiagnostics returns diags in source order: by file, then line, then
// column. Those without a source come first, as Terraform's views sort
// them; the order among equals is kept. diags itself is not changed.
//
// Load returns its diagnostics sorted; WriteDiagnostics and JSON sort
// what they are given too, since a command gathers diagnostics from
// several phases (loading, then planning) and reports them at once.
func SortDiagnostics(diags hcl.Diagnostics) hcl.Diagnostics {
	out := make(hcl.Diagnostics, len(diags))
	copy(out, diags)
	sort.SliceStable(out, func(i, j int) bool { return diagBefore(out[i].Subject, out[j].Subject) })
	return out
}

// diagBefore says whether a diagnostic at a comes before one at b.
func diagBefore(a, b *hcl.Range) bool {
	switch {
	case a == nil || b == nil:
		return a == nil && b != nil
	case a.Filename != b.Filename:
		return a.Filename < b.Filename
	case a.Start.Line != b.Start.Line:
		return a.Start.Line < b.Start.Line
	case a.Start.Column != b.Start.Column:
		return a.Start.Column < b.Start.Column
	default:
		return a.Start.Byte < b.Start.Byte
	}
}
