package views

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/tui/colorize"
)

// Validate is the view of the validate command, as Terraform's: the
// diagnostics with their source and "Success!", or with -json one
// document (valid, error_count, warning_count, diagnostics).
type Validate interface {
	// Results shows the validation's diagnostics (those of its flags
	// too, which come before any configuration is read) and returns the
	// exit code.
	Results(diags hcl.Diagnostics) int
}

// NewValidate returns validate's view: JSON with -json, else human. l
// renders the diagnostics, quoting the source it read.
func NewValidate(json bool, v *View, l *config.Loader) Validate {
	if json {
		return &validateJSON{v, l}
	}
	return &validateHuman{v, l}
}

type validateHuman struct {
	v *View
	l *config.Loader
}

func (h *validateHuman) Results(diags hcl.Diagnostics) int {
	color := h.v.Colorize(h.v.Err)
	if err := h.l.WriteDiagnostics(h.v.Err, diags, bool(color), 0); err != nil {
		h.v.Diagnostics(hcl.Diagnostics{{Severity: hcl.DiagError, Summary: err.Error()}}, nil)
		return 1
	}
	if diags.HasErrors() {
		return 1
	}
	// Terraform's words, warnings or not.
	valid := "The configuration is valid.\n"
	if len(diags) > 0 {
		valid = "The configuration is valid, but there were some validation warnings as shown above.\n"
	}
	success := (color && h.v.Colorize(h.v.Out)).Style("Success!", colorize.Green, colorize.Bold)
	fmt.Fprint(h.v.Out, success+" "+valid)
	return 0
}

type validateJSON struct {
	v *View
	l *config.Loader
}

func (j *validateJSON) Results(diags hcl.Diagnostics) int {
	if err := j.l.WriteJSON(j.v.Out, diags); err != nil {
		// The document could not be written: said as text, on stderr.
		j.v.Diagnostics(hcl.Diagnostics{{Severity: hcl.DiagError, Summary: err.Error()}}, nil)
		return 1
	}
	if diags.HasErrors() {
		return 1
	}
	return 0
}
