package views

import (
	"io"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/tui/termsafe"
)

// Diagnostics writes errors and warnings in the human form the commands
// have always used: "Error: SUMMARY", then a blank line and the detail
// when there is one ("Warning: ..." alike). Diagnostics of the
// configuration l read (nil: none) are rendered by its renderer, which
// quotes their source, coloured as v.Colorize says for the error stream.
// Summary and detail may quote the agent or a peer, so nothing in them may
// drive the terminal (termsafe).
func (v *View) Diagnostics(diags hcl.Diagnostics, l *config.Loader) {
	if l != nil {
		l.WriteDiagnostics(v.Err, diags, bool(v.Colorize(v.Err)), v.Width)
		return
	}
	for _, d := range diags {
		text := "Error: "
		if d.Severity == hcl.DiagWarning {
			text = "Warning: "
		}
		text += termsafe.Text(d.Summary) + "\n"
		if d.Detail != "" {
			text += "\n" + termsafe.Text(d.Detail) + "\n"
		}
		io.WriteString(v.Err, text)
	}
}

// Diagnostics writes each diagnostic as a line of type "diagnostic", in
// the shape of Terraform's views/json.Diagnostic ({"severity", "summary",
// "detail"}, with "range" and "snippet" for one of the configuration's,
// which l, when not nil, quotes).
func (v *JSONView) Diagnostics(diags hcl.Diagnostics, l *config.Loader) {
	if l == nil {
		l = config.NewLoader() // no source to quote
	}
	for i, d := range l.JSON(diags).Diagnostics {
		level, prefix := "error", "Error: "
		if diags[i].Severity == hcl.DiagWarning {
			level, prefix = "warn", "Warning: "
		}
		v.Write(level, prefix+d.Summary, "diagnostic", map[string]any{"diagnostic": d})
	}
}
