package command

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/rdmaform/rdmaform/command/arguments"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/planner/render"
	"github.com/rdmaform/rdmaform/state"
	"github.com/rdmaform/rdmaform/tui/termsafe"
)

func init() {
	register(command{Name: "show", Synopsis: "Show the current state, a saved state file or a saved plan", Run: runShow})
}

// runShow implements `rdmaform show [-json] [FILE]`. Without FILE it shows
// the current state; FILE is a saved plan (see showPlanFile) or a state
// file.
const showHelp = `Usage: rdmaform [global options] show [options] [FILE]

  Shows the current state, the state file FILE, or the plan saved in FILE.

Options:
  -json      Print machine-readable JSON.
  -no-color  Do not colour a saved plan (neither does a non-empty NO_COLOR).
`

func runShow(args []string, s Meta) int {
	s = s.withJSONErrors(args)
	a, diags := arguments.ParseShow(args)
	if a.Help {
		fmt.Fprint(s.Err, showHelp)
		return 0
	}
	if diags.HasErrors() {
		s.argDiagnostics(diags, showHelp)
		return 1
	}
	var st *state.State
	switch {
	case !a.HasPath:
		m, ok := openStateManager(".", s)
		if !ok {
			return 1
		}
		defer m.Close()
		if !refreshState(m, s) {
			return 1
		}
		st = m.State()
	default:
		if sp, err := readPlanFile(a.Path); err == nil {
			return showPlanFile(s, sp, a.View.JSON, !a.View.NoColor)
		} else if data, rerr := os.ReadFile(a.Path); rerr == nil && planner.IsPlanFile(data) {
			s.showError(fmt.Sprintf("Failed to read the saved plan %s", a.Path), err.Error())
			return 1
		}
		v, err := showFile(a.Path)
		if err != nil {
			s.showError(fmt.Sprintf("Failed to read %s", a.Path), err.Error())
			return 1
		}
		st = v
	}
	if a.View.JSON {
		doc := stateJSON(st)
		if !a.HasPath && st != nil {
			// The working directory's state: its objects' values with the
			// configuration's conditions.
			if cfg := showConfig(s); cfg != nil {
				doc.Checks = checksJSON(cfg, stateValues(st))
			}
		}
		return writeJSON(s, doc)
	}
	writeStateHuman(s.Out, st)
	return 0
}

// showFile reads a state file given to show; saved plans are recognised
// before it is called (readPlanFile).
func showFile(path string) (*state.State, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return state.Decode(data, path)
}

func writeJSON(s Meta, v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		s.showErrorText(err.Error())
		return 1
	}
	s.Out.Write(append(b, '\n'))
	return 0
}

// The JSON form follows `terraform show -json`: values.root_module.resources
// and values.outputs. The version of rdmaform that wrote the state is said
// under both names: Terraform's tools (hashicorp/terraform-json) read
// terraform_version.
type showJSON struct {
	FormatVersion    string          `json:"format_version"`
	TerraformVersion string          `json:"terraform_version,omitempty"`
	RdmaformVersion  string          `json:"rdmaform_version,omitempty"`
	Serial           uint64          `json:"serial,omitempty"`
	Lineage          string          `json:"lineage,omitempty"`
	Values           *showJSONValues `json:"values,omitempty"`
	// Checks are the conditions' outcomes with the state's values, as
	// Terraform's; rdmaform evaluates them when showing, with the
	// configuration here, rather than recording them at apply.
	Checks []checkJSON `json:"checks,omitempty"`
}

type showJSONValues struct {
	Outputs    map[string]outputJSON `json:"outputs,omitempty"`
	RootModule showJSONModule        `json:"root_module"`
}

type showJSONModule struct {
	Resources []showJSONResource `json:"resources"`
}

type showJSONResource struct {
	Address      string `json:"address"`
	Mode         string `json:"mode"` // "managed", as every object is
	Type         string `json:"type"`
	Name         string `json:"name"`
	Index        any    `json:"index,omitempty"`
	ProviderName string `json:"provider_name"`
	// Agent is the agent holding the object (agent.compute), absent for
	// the local agent.
	Agent         string          `json:"agent,omitempty"`
	SchemaVersion int             `json:"schema_version"`
	Values        json.RawMessage `json:"values"`
	Facts         state.Facts     `json:"facts"`
	DependsOn     []string        `json:"depends_on,omitempty"`
	Tainted       bool            `json:"tainted,omitempty"`
	// SensitiveValues mirrors Values with true where the value is
	// sensitive, as Terraform's sensitive_values (Values still holds it).
	SensitiveValues any `json:"sensitive_values"`
}

type outputJSON struct {
	Sensitive bool            `json:"sensitive"`
	Type      json.RawMessage `json:"type"`
	Value     json.RawMessage `json:"value"`
}

func stateJSON(st *state.State) showJSON {
	out := showJSON{FormatVersion: "1.0"}
	if st == nil {
		return out
	}
	out.RdmaformVersion, out.Serial, out.Lineage = st.RdmaformVersion, st.Serial, st.Lineage
	out.TerraformVersion = st.RdmaformVersion
	v := &showJSONValues{Outputs: outputsJSON(st), RootModule: showJSONModule{Resources: []showJSONResource{}}}
	for _, a := range st.Addresses() {
		v.RootModule.Resources = append(v.RootModule.Resources, objectJSON(st.Object(a)))
	}
	out.Values = v
	return out
}

func objectJSON(o *state.Object) showJSONResource {
	r := showJSONResource{
		Address: o.Addr.String(), Mode: "managed", Type: string(o.Addr.Kind), Name: o.Addr.Name, ProviderName: render.ProviderName,
		SchemaVersion: o.SchemaVersion, Values: o.Attributes, Facts: o.Facts, Tainted: o.Tainted,
		Index: addrs.KeyValue(o.Addr.Key), Agent: o.Agent,
	}
	if len(r.Values) == 0 {
		r.Values = json.RawMessage("{}")
	}
	r.SensitiveValues = sensitiveValues(decodeObject(r.Values), o.SensitiveAttributes, nil)
	for _, d := range o.Dependencies {
		r.DependsOn = append(r.DependsOn, d.String())
	}
	return r
}

func outputsJSON(st *state.State) map[string]outputJSON {
	out := map[string]outputJSON{}
	for _, n := range st.OutputNames() {
		o := st.Outputs[n]
		out[n] = outputJSON{Sensitive: o.Sensitive, Type: o.ValueType(), Value: o.Value}
	}
	return out
}

// writeStateHuman prints st the way `terraform show` prints a state.
func writeStateHuman(w io.Writer, st *state.State) {
	if st == nil || len(st.Objects)+len(st.Outputs) == 0 {
		fmt.Fprintln(w, "No state.")
		return
	}
	for i, a := range st.Addresses() {
		if i > 0 {
			fmt.Fprintln(w)
		}
		writeObjectHuman(w, st.Object(a))
	}
	if len(st.Outputs) > 0 {
		if len(st.Objects) > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprint(w, "Outputs:\n\n")
		for _, n := range st.OutputNames() {
			o := st.Outputs[n]
			if o.Sensitive {
				fmt.Fprintf(w, "%s = (sensitive value)\n", termsafe.String(n))
			} else {
				fmt.Fprintf(w, "%s = %s\n", termsafe.String(n), renderValue(o.Value, ""))
			}
		}
	}
}

// writeObjectHuman prints one object as an HCL-like block, its runtime
// facts in a nested facts block.
func writeObjectHuman(w io.Writer, o *state.Object) {
	tainted := ""
	if o.Tainted {
		tainted = " (tainted)"
	}
	fmt.Fprintf(w, "# %s:%s\n%s %q {\n", o.Addr, tainted, o.Addr.Kind, o.Addr.Name)
	if o.Agent != "" {
		fmt.Fprintf(w, "    agent = %s\n\n", termsafe.String(o.Agent))
	}
	writeBody(w, config.Schema(o.Addr.Kind), objectMembers(o.Attributes, o.SensitiveAttributes), "    ")
	facts := factFields(o.Facts)
	if len(facts) > 0 {
		fmt.Fprintf(w, "\n    facts {\n")
		writeAttrs(w, facts, "        ")
		fmt.Fprintf(w, "    }\n")
	}
	fmt.Fprintln(w, "}")
}

type field struct {
	name  string
	value string
}

func writeAttrs(w io.Writer, fields []field, indent string) {
	width := 0
	for _, f := range fields {
		width = max(width, len(f.name))
	}
	for _, f := range fields {
		fmt.Fprintf(w, "%s%-*s = %s\n", indent, width, f.name, strings.ReplaceAll(f.value, "\n", "\n"+indent))
	}
}

// sensitiveValues mirrors v (at path) with true where sensitive lists a
// path, omitting the other leaves, as Terraform's sensitive_values.
func sensitiveValues(v any, sensitive [][]string, path []string) any {
	for _, p := range sensitive {
		if slices.Equal(p, path) {
			return true
		}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	out := map[string]any{}
	for k, e := range m {
		if s := sensitiveValues(e, sensitive, append(path[:len(path):len(path)], k)); s != false {
			out[k] = s
		}
	}
	return out
}

// decodeObject decodes a JSON object, numbers as json.Number; nil if it
// is not one.
func decodeObject(raw json.RawMessage) map[string]any {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if dec.Decode(&m) != nil {
		return nil
	}
	return m
}

// sensitiveLeaf stands in for a sensitive value in what show prints.
type sensitiveLeaf struct{}

// objectMembers decodes an object's JSON attributes, with the values at
// the paths sensitive lists as sensitiveLeaf.
func objectMembers(raw json.RawMessage, sensitive [][]string) map[string]any {
	m := decodeObject(raw)
	for _, p := range sensitive {
		at := m
		for i, name := range p {
			e, ok := at[name]
			if !ok || e == nil {
				break
			}
			if i == len(p)-1 {
				at[name] = sensitiveLeaf{}
				break
			}
			if at, ok = e.(map[string]any); !ok {
				break
			}
		}
	}
	return m
}

// writeBody prints an object's members as terraform show does: the
// attributes (nulls skipped) aligned, then each nested block the schema
// declares as a block of its own.
func writeBody(w io.Writer, schema *config.Block, m map[string]any, indent string) {
	names := make([]string, 0, len(m))
	for k, v := range m {
		if v != nil {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	var attrs []field
	var blocks []string
	for _, k := range names {
		if schema != nil && schema.NestedBlock(k) != nil {
			if _, ok := m[k].(map[string]any); ok {
				blocks = append(blocks, k)
				continue
			}
		}
		var b strings.Builder
		renderAny(&b, m[k], "")
		attrs = append(attrs, field{hclKey(k), b.String()})
	}
	writeAttrs(w, attrs, indent)
	for _, k := range blocks {
		fmt.Fprintf(w, "\n%s%s {\n", indent, k)
		writeBody(w, schema.NestedBlock(k).Block, m[k].(map[string]any), indent+"    ")
		fmt.Fprintf(w, "%s}\n", indent)
	}
}

func factFields(f state.Facts) []field {
	b, _ := json.Marshal(f)
	var m map[string]json.RawMessage
	json.Unmarshal(b, &m)
	order := []string{"agent_handle", "create_token", "device", "port_num", "qp_num", "qp_type", "local_address", "local_port", "remote_address", "remote_port", "status", "reconnects", "created_at"}
	var out []field
	for _, k := range order {
		if v, ok := m[k]; ok {
			out = append(out, field{k, renderValue(v, "")})
		}
	}
	return out
}

// renderValue renders a JSON value in HCL syntax, multi-line like
// Terraform's show.
func renderValue(raw json.RawMessage, indent string) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return string(raw)
	}
	var b strings.Builder
	renderAny(&b, v, indent)
	return b.String()
}

func renderAny(b *strings.Builder, v any, indent string) {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case sensitiveLeaf:
		b.WriteString("(sensitive value)")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case json.Number:
		b.WriteString(v.String())
	case string:
		b.WriteString(strconv.Quote(v))
	case []any:
		if len(v) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for _, e := range v {
			b.WriteString(indent + "    ")
			renderAny(b, e, indent+"    ")
			b.WriteString(",\n")
		}
		b.WriteString(indent + "]")
	case map[string]any:
		if len(v) == 0 {
			b.WriteString("{}")
			return
		}
		keys := make([]string, 0, len(v))
		width := 0
		for k := range v {
			keys = append(keys, k)
			width = max(width, len(hclKey(k)))
		}
		sort.Strings(keys)
		b.WriteString("{\n")
		for _, k := range keys {
			fmt.Fprintf(b, "%s    %-*s = ", indent, width, hclKey(k))
			renderAny(b, v[k], indent+"    ")
			b.WriteString("\n")
		}
		b.WriteString(indent + "}")
	default:
		fmt.Fprint(b, v)
	}
}

// hclKey quotes k unless it is an identifier.
func hclKey(k string) string {
	for i, r := range k {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && (r == '-' || r >= '0' && r <= '9')) {
			return strconv.Quote(k)
		}
	}
	if k == "" {
		return `""`
	}
	return k
}
