package command

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/apply"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/planner/render"
	"github.com/rdmaform/rdmaform/state"
)

// humanOperation is the human views.Operation of plan, apply, destroy
// and refresh: text on the session's streams, coloured when the session
// says so. It is the session's, whose configuration and state its
// messages quote.
type humanOperation struct{ se *session }

func (h *humanOperation) SetLoader(*config.Loader) {} // the session's

func (h *humanOperation) Plan(p *planner.Plan) { render.Human(h.se.s.Out, p, h.se.color) }

func (h *humanOperation) PlannedOutputs(*planner.Plan) {} // in Plan's text

// Diagnostics renders diagnostics with their source, to stderr; with
// -compact-warnings, warnings as a list of summaries after the errors.
func (h *humanOperation) Diagnostics(diags hcl.Diagnostics) {
	se := h.se
	color := se.color && cfgIsTerminal(se.s.Err)
	if !se.compactWarnings {
		se.loader.WriteDiagnostics(se.s.Err, diags, color, 0)
		return
	}
	var errs, warnings hcl.Diagnostics
	for _, d := range diags {
		if d.Severity == hcl.DiagWarning {
			warnings = append(warnings, d)
		} else {
			errs = append(errs, d)
		}
	}
	if len(errs) > 0 {
		se.loader.WriteDiagnostics(se.s.Err, errs, color, 0)
	}
	writeCompactWarnings(se.s.Err, warnings)
}

func (h *humanOperation) Hook() func(apply.Event) { return nil } // progress lines instead

func (h *humanOperation) ApplyErrors(errs []apply.OpError) {
	se := h.se
	writeApplyErrors(se.s.Err, errs, func(a addrs.Instance) string { return declaredAt(se.loader, se.cfg, a) })
}

func (h *humanOperation) Summary(destroy bool, r *apply.Report) {
	fmt.Fprintf(h.se.s.Out, "\n%s\n", completeLine(destroy, r, h.se.color))
}

func (h *humanOperation) Outputs(*state.State) { writeOutputs(h.se, h.se.s.Out, h.se.color) }
