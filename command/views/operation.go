package views

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/apply"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/state"
)

// Operation is the view of plan, apply, destroy and refresh, as
// Terraform's views.Operation: a human implementation (text, colour) and
// a JSON one (Terraform's machine-readable UI), one of them chosen once
// from -json when the command's session opens.
type Operation interface {
	// SetLoader gives the loaded configuration, whose source the
	// diagnostics quote.
	SetLoader(l *config.Loader)
	// Plan shows the planned changes; PlannedOutputs the root outputs
	// they change (plan only; the human plan shows them with the
	// changes).
	Plan(p *planner.Plan)
	PlannedOutputs(p *planner.Plan)
	// Diagnostics shows warnings and errors.
	Diagnostics(diags hcl.Diagnostics)
	// Hook is what receives apply's events, nil when the view shows
	// apply's progress lines instead.
	Hook() func(apply.Event)
	// ApplyErrors shows the operations that failed.
	ApplyErrors(errs []apply.OpError)
	// Summary shows what apply or destroy did; Outputs the root outputs
	// the state now records.
	Summary(destroy bool, r *apply.Report)
	Outputs(st *state.State)
}
