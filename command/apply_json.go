package command

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/apply"
	"github.com/rdmaform/rdmaform/command/views"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/planner/render"
	"github.com/rdmaform/rdmaform/state"
)

// jsonUI, the JSON views.Operation, is Terraform's machine-readable UI (apply -json, destroy -json):
// one JSON object per line on standard output, each with @level,
// @message, @module, @timestamp and a type (version, planned_change,
// change_summary, apply_start, apply_progress, apply_complete,
// apply_errored, diagnostic, outputs), in the shapes of Terraform's
// "ui" 1.2. Notes that have no message type of Terraform's (an agent
// started in the background, what an interrupted apply left) stay on
// standard error as text.
type jsonUI struct {
	view   *views.JSONView
	loader *config.Loader // for diagnostics' source snippets
}

// uiVersion is the version of Terraform's machine-readable UI this follows.
const uiVersion = "1.2"

// newJSONUI writes on the command's JSON view (Meta.withJSON).
func newJSONUI(s Meta) *jsonUI {
	v := s.jsonView
	if v == nil {
		v = views.NewJSONView(s.Out)
	}
	return &jsonUI{view: v}
}

// SetLoader gives the configuration the diagnostics quote.
func (u *jsonUI) SetLoader(l *config.Loader) { u.loader = l }

func (u *jsonUI) write(level, message, typ string, fields map[string]any) {
	u.view.Write(level, message, typ, fields)
}

func (u *jsonUI) version() {
	u.write("info", "rdmaform "+Version, "version", map[string]any{"rdmaform": Version, "terraform": Version, "ui": uiVersion})
}

// uiResource is an object's address as Terraform's UI messages give it.
func uiResource(a addrs.Instance) map[string]any {
	return map[string]any{
		"addr": a.String(), "module": "", "resource": a.String(), "implied_provider": "rdmaform",
		"resource_type": string(a.Kind), "resource_name": a.Name, "resource_key": addrs.KeyValue(a.Key),
	}
}

// Plan reports each planned change and the plan's summary.
func (u *jsonUI) Plan(p *planner.Plan) {
	for _, d := range p.Drift {
		action := "delete"
		if !d.Deleted() {
			action = "update"
		}
		u.write("info", fmt.Sprintf("%s: Drift detected (%s)", d.Addr, action), "resource_drift",
			map[string]any{"change": map[string]any{"resource": uiResource(d.Addr), "action": action}})
	}
	for _, c := range p.Changes {
		action, verb := "noop", ""
		switch {
		case c.Importing():
			action, verb = "import", "Plan to import"
		case c.Action == planner.Create:
			action, verb = "create", "Plan to create"
		case c.Action == planner.Update:
			action, verb = "update", "Plan to update"
		case c.Action == planner.DeleteThenCreate || c.Action == planner.CreateThenDelete:
			action, verb = "replace", "Plan to replace"
		case c.Action == planner.Delete:
			action, verb = "delete", "Plan to delete"
		case c.Moved():
			action, verb = "move", "Plan to move"
		default:
			continue
		}
		change := map[string]any{"resource": uiResource(c.Addr), "action": action}
		if c.Moved() {
			change["previous_resource"] = uiResource(c.PrevAddr)
		}
		if r := render.UIReason(c); r != "" {
			change["reason"] = r
		}
		u.write("info", fmt.Sprintf("%s: %s", c.Addr, verb), "planned_change", map[string]any{"change": change})
	}
	for _, d := range p.Deposed {
		u.write("info", fmt.Sprintf("%s (deposed object %s): Plan to delete", d.Addr, planner.DeposedKey(d.Token)), "planned_change",
			map[string]any{"change": map[string]any{"resource": uiResource(d.Addr), "action": "delete", "deposed": planner.DeposedKey(d.Token)}})
	}
	for _, f := range p.Forgets {
		u.write("info", fmt.Sprintf("%s: Plan to forget", f.Addr), "planned_change",
			map[string]any{"change": map[string]any{"resource": uiResource(f.Addr), "action": "remove"}})
	}
	add, change, destroy := p.Counts()
	u.write("info", render.Summary(p), "change_summary", map[string]any{"changes": map[string]any{
		"add": add, "change": change, "remove": destroy, "import": p.Imports(), "forget": len(p.Forgets), "operation": "plan"}})
}

// PlannedOutputs reports the root outputs the plan changes, and how, as
// Terraform's plan -json does (no values: they may be unknown).
func (u *jsonUI) PlannedOutputs(p *planner.Plan) {
	out := map[string]any{}
	for _, oc := range p.OutputChanges {
		action := "noop"
		switch oc.Action {
		case planner.Create:
			action = "create"
		case planner.Update:
			action = "update"
		case planner.Delete:
			action = "delete"
		}
		out[oc.Name] = map[string]any{"sensitive": oc.Sensitive, "action": action}
	}
	u.write("info", fmt.Sprintf("Outputs: %d", len(out)), "outputs", map[string]any{"outputs": out})
}

// Hook reports apply's events as they come.
func (u *jsonUI) Hook() func(apply.Event) { return u.hook }

func (u *jsonUI) hook(ev apply.Event) {
	h := map[string]any{"resource": uiResource(ev.Addr), "action": ev.Action}
	if ev.Deposed != "" {
		h["deposed"] = ev.Deposed
	}
	if ev.IDKey != "" {
		h["id_key"], h["id_value"] = ev.IDKey, ev.IDValue
	}
	typ, level := "apply_start", "info"
	switch ev.Type {
	case apply.EventProgress:
		typ = "apply_progress"
		h["elapsed_seconds"] = int(ev.Elapsed.Seconds())
	case apply.EventComplete:
		typ = "apply_complete"
		h["elapsed_seconds"] = int(ev.Elapsed.Seconds())
	case apply.EventCancelled:
		typ, level = "apply_errored", "error"
		h["elapsed_seconds"] = int(ev.Elapsed.Seconds())
	case apply.EventErrored:
		typ, level = "apply_errored", "error"
		h["elapsed_seconds"] = int(ev.Elapsed.Seconds())
	}
	msg := ev.Message
	if ev.Type == apply.EventErrored {
		msg = fmt.Sprintf("%s: %s errored after %ds", ev.Addr, actionNoun(ev.Action), int(ev.Elapsed.Seconds()))
	}
	u.write(level, msg, typ, map[string]any{"hook": h})
}

// actionNoun is Terraform's word for an operation in its hooks' messages
// ("Creation errored after 5s").
func actionNoun(action string) string {
	switch action {
	case "create":
		return "Creation"
	case "update":
		return "Modifications"
	case "delete":
		return "Destruction"
	case "import":
		return "Import"
	}
	return action
}

// ApplyErrors reports the errors of the operations that failed, each as an
// error diagnostic (their apply_errored came as they failed).
func (u *jsonUI) ApplyErrors(errs []apply.OpError) {
	for _, e := range errs {
		u.Diagnostics(hcl.Diagnostics{{Severity: hcl.DiagError, Summary: e.Error()}})
	}
}

// Diagnostics reports warnings and errors in the shape validate -json
// gives them.
func (u *jsonUI) Diagnostics(diags hcl.Diagnostics) { u.view.Diagnostics(diags, u.loader) }

// Summary reports what apply or destroy did.
func (u *jsonUI) Summary(destroy bool, r *apply.Report) {
	op := "apply"
	if destroy {
		op = "destroy"
	}
	u.write("info", completeLine(destroy, r, false), "change_summary", map[string]any{"changes": map[string]any{
		"add": r.Added, "change": r.Changed, "remove": r.Destroyed, "import": r.Imported, "forget": r.Forgotten, "operation": op}})
}

// Outputs reports the root outputs the state records.
func (u *jsonUI) Outputs(st *state.State) {
	out := map[string]any{}
	if st != nil {
		for name, o := range st.Outputs {
			v := map[string]any{"sensitive": o.Sensitive, "type": o.ValueType()}
			if !o.Sensitive {
				v["value"] = o.Value
			}
			out[name] = v
		}
	}
	u.write("info", fmt.Sprintf("Outputs: %d", len(out)), "outputs", map[string]any{"outputs": out})
}
