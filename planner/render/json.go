package render

import (
	"encoding/json"
	"io"
	"math/big"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/zclconf/go-cty/cty"
)

// JSONPlan is the machine-readable plan, shaped as `terraform show -json`
// shapes a plan: resource_changes with actions, before, after,
// after_unknown and replace_paths.
type JSONPlan struct {
	FormatVersion string `json:"format_version"`
	// TerraformVersion is rdmaform's version, under Terraform's name
	// (tools print and compare it), where the caller sets it.
	TerraformVersion string `json:"terraform_version,omitempty"`
	// Variables are the root variables' values, as Terraform's (which
	// holds sensitive ones too, as the saved plan does).
	Variables       map[string]JSONVariable `json:"variables,omitempty"`
	ResourceDrift   []JSONResourceChange    `json:"resource_drift,omitempty"`
	ResourceChanges []JSONResourceChange    `json:"resource_changes"`
	// PlannedValues are the objects and outputs as the plan leaves them,
	// as Terraform's planned_values (values known only after apply are
	// left out: resource_changes' after_unknown says which).
	PlannedValues *JSONPlannedValues    `json:"planned_values,omitempty"`
	OutputChanges map[string]JSONChange `json:"output_changes,omitempty"`
	Summary       JSONSummary           `json:"summary"`
	// PriorState is the state the plan was made from: a state document
	// as show -json prints one where the caller has it (the state the
	// plan is still current for), else its format, lineage and serial.
	PriorState any `json:"prior_state,omitempty"`
	// Configuration is Terraform's configuration section (see
	// config.Config.JSONConfiguration), where the caller has it.
	Configuration any `json:"configuration,omitempty"`
	// Timestamp is when the plan was made (RFC 3339, UTC), as Terraform's;
	// absent for a plan file saved before plans recorded it.
	Timestamp string `json:"timestamp,omitempty"`
	// RelevantAttributes are the objects' attributes the plan's changes
	// depend on ([]config.ResourceAttr: see planner.RelevantAttributes),
	// where the caller has the configuration.
	RelevantAttributes any              `json:"relevant_attributes,omitempty"`
	Diagnostics        []JSONDiagnostic `json:"diagnostics,omitempty"`
	Errored            bool             `json:"errored"`
	// Applyable and Complete are Terraform's (1.8 and later): the plan
	// changes something and can be applied; and it carries every change
	// the configuration needs (not narrowed by -target).
	Applyable bool `json:"applyable"`
	Complete  bool `json:"complete"`

	// Checks are the outcomes of the configuration's conditions with the
	// plan's values, in Terraform's shape, where the caller has the
	// configuration.
	Checks any `json:"checks,omitempty"`
}

// JSONVariable is one root variable's value.
type JSONVariable struct {
	Value any `json:"value"`
}

// JSONPlannedValues is Terraform's planned_values: the root module's
// objects after the plan, and its outputs.
type JSONPlannedValues struct {
	Outputs    map[string]JSONOutput `json:"outputs,omitempty"`
	RootModule JSONModule            `json:"root_module"`
}

// JSONModule holds the planned objects.
type JSONModule struct {
	Resources []JSONResource `json:"resources"`
}

// ProviderName is what Terraform's JSON calls the provider of every
// object, in the form of Terraform's own built-in provider's.
const ProviderName = "rdmaform.io/builtin/rdmaform"

// JSONResource is one object as the plan leaves it.
type JSONResource struct {
	Address         string `json:"address"`
	Mode            string `json:"mode"`
	Type            string `json:"type"`
	Name            string `json:"name"`
	Index           any    `json:"index,omitempty"`
	ProviderName    string `json:"provider_name"`
	SchemaVersion   int    `json:"schema_version"`
	Values          any    `json:"values"`
	SensitiveValues any    `json:"sensitive_values"`
}

// JSONResourceChange is one object's change.
type JSONResourceChange struct {
	Address      string `json:"address"`
	Mode         string `json:"mode"`
	Type         string `json:"type"`
	Name         string `json:"name"`
	Index        any    `json:"index,omitempty"`
	ProviderName string `json:"provider_name"`
	Deposed      string `json:"deposed,omitempty"` // the deposed object's key, as Terraform's
	// PreviousAddress is where a moved block moved the object from.
	PreviousAddress string `json:"previous_address,omitempty"`
	// Agent is the agent holding the object once the change is made (for
	// a delete, the one destroying it); PreviousAgent, the one holding it
	// now when the change moves it to another. Absent for the local agent.
	Agent         string     `json:"agent,omitempty"`
	PreviousAgent string     `json:"previous_agent,omitempty"`
	Change        JSONChange `json:"change"`
	ActionReason  string     `json:"action_reason,omitempty"`
}

// JSONChange is a before/after pair; unknown values are null in After and
// true at the same place in AfterUnknown. BeforeSensitive and
// AfterSensitive mirror Before and After with true where a value is
// sensitive (false for a null or wholly non-sensitive value), as
// Terraform's: Before and After still hold the values.
type JSONChange struct {
	Actions         []string   `json:"actions"`
	Before          any        `json:"before"`
	After           any        `json:"after"`
	AfterUnknown    any        `json:"after_unknown"`
	BeforeSensitive any        `json:"before_sensitive,omitempty"`
	AfterSensitive  any        `json:"after_sensitive,omitempty"`
	ReplacePaths    [][]string `json:"replace_paths,omitempty"`
	// Importing names the object an import block adopts, as Terraform's
	// change.importing; its actions are then ["no-op"].
	Importing *JSONImporting `json:"importing,omitempty"`
}

// JSONImporting is the object an import adopts: the agent's name for it.
type JSONImporting struct {
	ID string `json:"id"`
}

// JSONSummary counts the changes as the human summary does.
type JSONSummary struct {
	Import int `json:"import,omitempty"`
	Add    int `json:"add"`
	Change int `json:"change"`
	// Destroy is also given as remove, the name plan -json's
	// change_summary (Terraform's) uses.
	Destroy int `json:"destroy"`
	Remove  int `json:"remove"`
}

// JSONStateID names the state the plan was made from, as a state
// document without values (terraform-json reads a prior_state only with
// its format_version).
type JSONStateID struct {
	FormatVersion string `json:"format_version"`
	Lineage       string `json:"lineage"`
	Serial        uint64 `json:"serial"`
}

// JSONDiagnostic is a warning or error met while planning, with its
// source range when it has one (validate -json's form, without the
// snippet).
type JSONDiagnostic = config.JSONDiagnostic

// JSON writes p (nil when planning failed early) and diags as one JSON
// document followed by a newline.
func JSON(w io.Writer, p *planner.Plan, diags hcl.Diagnostics) error {
	return WriteJSON(w, JSONDocument(p, diags))
}

// WriteJSON writes a plan's document followed by a newline.
func WriteJSON(w io.Writer, doc JSONPlan) error {
	b, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// JSONDocument is p (nil when planning failed early) and diags as the
// machine-readable plan.
func JSONDocument(p *planner.Plan, diags hcl.Diagnostics) JSONPlan {
	out := JSONPlan{FormatVersion: "1.0", ResourceChanges: []JSONResourceChange{}, Errored: diags.HasErrors()}
	for _, d := range diags {
		sev := "error"
		if d.Severity == hcl.DiagWarning {
			sev = "warning"
		}
		jd := JSONDiagnostic{Severity: sev, Summary: d.Summary, Detail: d.Detail}
		if r := d.Subject; r != nil {
			jd.Range = &config.JSONRange{Filename: r.Filename,
				Start: config.JSONPos{Line: r.Start.Line, Column: r.Start.Column, Byte: r.Start.Byte},
				End:   config.JSONPos{Line: r.End.Line, Column: r.End.Column, Byte: r.End.Byte}}
		}
		out.Diagnostics = append(out.Diagnostics, jd)
	}
	if p != nil {
		out.Timestamp = p.Timestamp()
		if p.Prior.Exists {
			out.PriorState = &JSONStateID{FormatVersion: "1.0", Lineage: p.Prior.Lineage, Serial: p.Prior.Serial}
		}
		for _, v := range p.Variables {
			if out.Variables == nil {
				out.Variables = map[string]JSONVariable{}
			}
			out.Variables[v.Name] = JSONVariable{Value: jsonValue(v.Value)}
		}
		for _, d := range p.Drift {
			rc := resourceChange(d.Addr)
			rc.Change = JSONChange{Actions: []string{"delete"}, Before: jsonValue(d.Before), AfterUnknown: false,
				BeforeSensitive: sensitiveTree(d.Before, d.BeforeSensitive, nil), AfterSensitive: false}
			rc.ActionReason = "deleted_outside"
			if !d.Deleted() {
				rc.Change.Actions, rc.Change.After, rc.Change.AfterUnknown = []string{"update"}, jsonValue(d.After), unknownTree(d.After)
				rc.Change.AfterSensitive = sensitiveTree(d.After, d.BeforeSensitive, nil)
				rc.ActionReason = ""
			}
			out.ResourceDrift = append(out.ResourceDrift, rc)
		}
		for _, c := range p.Changes {
			rc := resourceChange(c.Addr)
			rc.ActionReason = JSONReason(c)
			if c.Moved() {
				rc.PreviousAddress = c.PrevAddr.String()
			}
			rc.Agent = c.Agent
			if c.AgentChanged() {
				rc.PreviousAgent = c.PriorAgent
				rc.Change.ReplacePaths = append(rc.Change.ReplacePaths, []string{"agent"})
			}
			rc.Change = JSONChange{Actions: jsonActions(c.Action), Before: jsonValue(c.BeforeValue()), After: jsonValue(c.AfterValue()), AfterUnknown: unknownTree(c.AfterValue()),
				BeforeSensitive: sensitiveTree(c.BeforeValue(), c.BeforeSensitive, nil), AfterSensitive: sensitiveTree(c.AfterValue(), c.AfterSensitive, nil),
				ReplacePaths: rc.Change.ReplacePaths}
			for _, path := range c.RequiredReplace {
				rc.Change.ReplacePaths = append(rc.Change.ReplacePaths, pathStrings(path))
			}
			if c.Importing() {
				rc.Change.Actions = []string{"no-op"}
				rc.Change.Importing = &JSONImporting{ID: c.ImportID}
			}
			out.ResourceChanges = append(out.ResourceChanges, rc)
		}
		for _, d := range p.Deposed {
			rc := resourceChange(d.Addr)
			rc.Deposed = planner.DeposedKey(d.Token)
			rc.Change = JSONChange{Actions: []string{"delete"}, Before: map[string]any{"id": d.Handle}, After: nil,
				BeforeSensitive: map[string]any{}, AfterSensitive: false}
			out.ResourceChanges = append(out.ResourceChanges, rc)
		}
		for _, f := range p.Forgets {
			rc := resourceChange(f.Addr)
			rc.Change = JSONChange{Actions: []string{"forget"}, Before: map[string]any{"id": f.Handle}, After: nil,
				BeforeSensitive: map[string]any{}, AfterSensitive: false}
			out.ResourceChanges = append(out.ResourceChanges, rc)
		}
		for _, oc := range p.OutputChanges {
			if out.OutputChanges == nil {
				out.OutputChanges = map[string]JSONChange{}
			}
			ch := JSONChange{Actions: jsonActions(oc.Action), Before: jsonValue(oc.Before), After: jsonValue(oc.After), AfterUnknown: unknownTree(oc.After)}
			// As Terraform's: the values themselves, with sensitivity
			// flagged (a plan's JSON holds sensitive values, as the plan
			// file does).
			ch.BeforeSensitive, ch.AfterSensitive = oc.Sensitive, oc.Sensitive
			out.OutputChanges[oc.Name] = ch
		}
		out.PlannedValues = &JSONPlannedValues{Outputs: plannedOutputs(p), RootModule: JSONModule{Resources: []JSONResource{}}}
		for _, c := range p.Changes {
			if c.Action == planner.Delete || c.AfterValue().IsNull() {
				continue
			}
			rc := resourceChange(c.Addr)
			out.PlannedValues.RootModule.Resources = append(out.PlannedValues.RootModule.Resources, JSONResource{
				Address: rc.Address, Mode: rc.Mode, Type: rc.Type, Name: rc.Name, Index: rc.Index, ProviderName: ProviderName,
				Values: jsonValue(omitUnknowns(c.AfterValue())), SensitiveValues: sensitiveTree(c.AfterValue(), c.AfterSensitive, nil)})
		}
		out.Summary.Add, out.Summary.Change, out.Summary.Destroy = p.Counts()
		out.Summary.Remove = out.Summary.Destroy
		out.Summary.Import = p.Imports()
		out.Applyable = !out.Errored && p.HasChanges()
		out.Complete = !out.Errored && len(p.Targets) == 0
	}
	return out
}

func resourceChange(a addrs.Instance) JSONResourceChange {
	return JSONResourceChange{Address: a.String(), Mode: "managed", Type: string(a.Kind), Name: a.Name, Index: addrs.KeyValue(a.Key), ProviderName: ProviderName}
}

func jsonActions(a planner.Action) []string {
	switch a {
	case planner.DeleteThenCreate:
		return []string{"delete", "create"}
	case planner.CreateThenDelete:
		return []string{"create", "delete"}
	}
	return []string{a.String()}
}

func pathStrings(p cty.Path) []string {
	var out []string
	for _, s := range p {
		if ga, ok := s.(cty.GetAttrStep); ok {
			out = append(out, ga.Name)
		}
	}
	return out
}

// jsonValue converts v for encoding/json; unknown values become null (see
// unknownTree).
func jsonValue(v cty.Value) any {
	if v == cty.NilVal || !v.IsKnown() || v.IsNull() {
		return nil
	}
	v, _ = v.Unmark()
	ty := v.Type()
	switch {
	case ty == cty.String:
		return v.AsString()
	case ty == cty.Number:
		f := v.AsBigFloat()
		if f.IsInt() {
			i, _ := f.Int(new(big.Int))
			return json.Number(i.String())
		}
		return json.Number(f.Text('g', -1))
	case ty == cty.Bool:
		return v.True()
	case ty.IsObjectType() || ty.IsMapType():
		m := map[string]any{}
		for k, e := range v.AsValueMap() {
			m[k] = jsonValue(e)
		}
		return m
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType():
		out := []any{}
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			out = append(out, jsonValue(e))
		}
		return out
	}
	return nil
}

// unknownTree mirrors v with true where a value is unknown, omitting
// known leaves, as Terraform's after_unknown.
func unknownTree(v cty.Value) any {
	if v == cty.NilVal {
		return false
	}
	if !v.IsKnown() {
		return true
	}
	if v.IsNull() {
		return false
	}
	ty := v.Type()
	switch {
	case ty.IsObjectType() || ty.IsMapType():
		m := map[string]any{}
		for k, e := range v.AsValueMap() {
			if u := unknownTree(e); u != false {
				m[k] = u
			}
		}
		return m
	case (ty.IsListType() || ty.IsSetType() || ty.IsTupleType()) && v.LengthInt() > 0:
		// One entry per element, as Terraform's: [false, true].
		out := make([]any, 0, v.LengthInt())
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			out = append(out, unknownTree(e))
		}
		return out
	}
	return false
}

// sensitiveTree mirrors v (at path) with true where paths say a value is
// sensitive, omitting the other leaves, as Terraform's before_sensitive
// and after_sensitive: false for a null value, an object for an object.
func sensitiveTree(v cty.Value, paths []cty.Path, path cty.Path) any {
	for _, p := range paths {
		if p.Equals(path) {
			return true
		}
	}
	if v == cty.NilVal || !v.IsKnown() || v.IsNull() {
		return false
	}
	ty := v.Type()
	if !ty.IsObjectType() {
		return false
	}
	m := map[string]any{}
	for name, aty := range ty.AttributeTypes() {
		if len(paths) == 0 {
			// Nothing is sensitive: only nested objects show, as {}.
			if aty.IsObjectType() {
				if s := sensitiveTree(v.GetAttr(name), nil, nil); s != false {
					m[name] = s
				}
			}
			continue
		}
		sub := append(path[:len(path):len(path)], cty.GetAttrStep{Name: name})
		if s := sensitiveTree(v.GetAttr(name), paths, sub); s != false {
			m[name] = s
		}
	}
	return m
}
