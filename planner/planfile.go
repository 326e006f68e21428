package planner

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/state"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// PlanFileFormat is the saved-plan format this build writes and reads.
const PlanFileFormat = 3

// planFileMagic starts every saved plan, so that show can tell one from a
// state file.
const planFileMagic = "rdmaform-plan"

// Inputs are what a saved plan was made from besides the state: apply of
// the plan reloads the configuration with the same variables and refuses
// if the configuration files changed since.
type Inputs struct {
	// Vars are the -var and -var-file options, in order, and Env the
	// RDMAFORM_VAR_* environment entries.
	Vars []VarInput `json:"vars,omitempty"`
	Env  []string   `json:"env,omitempty"`
	// ConfigDigest is a digest of the configuration and variable files.
	ConfigDigest string `json:"config_digest"`
	// Workspace is the workspace the plan was made in ("" the default).
	Workspace string `json:"workspace,omitempty"`
	// Agent is the agent the plan was refreshed from (nil when it was
	// not): objects are live only in it, so the plan holds for it alone.
	Agent *AgentIdentity `json:"agent,omitempty"`
}

// AgentIdentity tells one run of an agent from another: a restarted
// agent has another pid or start time (and none of the objects).
type AgentIdentity struct {
	PID       int   `json:"pid"`
	StartedAt int64 `json:"started_at"` // Unix nanoseconds
}

// VarInput mirrors config.VarArg.
type VarInput struct {
	File  bool   `json:"file,omitempty"`
	Value string `json:"value"`
}

// SavedPlan is a plan file's content.
type SavedPlan struct {
	Plan            *Plan
	Inputs          Inputs
	RdmaformVersion string
}

type planFile struct {
	Magic           string  `json:"format"`
	FormatVersion   int     `json:"format_version"`
	RdmaformVersion string  `json:"rdmaform_version"`
	Prior           StateID `json:"prior_state"`
	// Created is RFC 3339, UTC; absent from plans saved before it was
	// recorded, which still load.
	Created     string         `json:"created_at,omitempty"`
	Destroy     bool           `json:"destroy,omitempty"`
	RefreshOnly bool           `json:"refresh_only,omitempty"`
	Refreshed   bool           `json:"refreshed,omitempty"`
	Targets     []string       `json:"targets,omitempty"`
	Replace     []string       `json:"replace,omitempty"`
	Inputs      Inputs         `json:"inputs"`
	Changes     []changeFile   `json:"changes"`
	Drift       []driftFile    `json:"drift,omitempty"`
	Deposed     []deposedFile  `json:"deposed,omitempty"`
	Outputs     []outputFile   `json:"output_changes,omitempty"`
	Variables   []variableFile `json:"variables,omitempty"`
	Moves       []moveFile     `json:"moves,omitempty"`
	Forgets     []forgetFile   `json:"forgets,omitempty"`
}

type forgetFile struct {
	Addr   string `json:"address"`
	Handle string `json:"agent_handle"`
}

type moveFile struct {
	From string `json:"from"`
	To   string `json:"to"`
}

type deposedFile struct {
	Addr    string `json:"address"`
	Handle  string `json:"agent_handle"`
	Token   string `json:"create_token,omitempty"`
	Agent   string `json:"agent,omitempty"`
	Pending bool   `json:"pending,omitempty"`
	Failed  string `json:"failed,omitempty"`
}

type changeFile struct {
	Addr            string     `json:"address"`
	Action          string     `json:"action"`
	Reason          string     `json:"reason,omitempty"`
	Before          string     `json:"before"` // base64 of cty msgpack (keeps unknowns)
	After           string     `json:"after"`
	RequiredReplace [][]string `json:"required_replace,omitempty"`
	Changed         [][]string `json:"changed,omitempty"`
	// Absent from plans saved before sensitive attributes were recorded:
	// those still load, with none.
	BeforeSensitive [][]string `json:"before_sensitive,omitempty"`
	AfterSensitive  [][]string `json:"after_sensitive,omitempty"`
	Dependencies    []string   `json:"dependencies,omitempty"`
	LiveStatus      string     `json:"live_status,omitempty"`
	LiveError       string     `json:"live_error,omitempty"`
	ImportID        string     `json:"import_id,omitempty"`
	TargetedVia     string     `json:"targeted_via,omitempty"`
	Reconnects      bool       `json:"reconnects,omitempty"`
	// The agents' keys; absent for the local agent.
	Agent      string `json:"agent,omitempty"`
	PriorAgent string `json:"prior_agent,omitempty"`
}

type driftFile struct {
	Addr            string     `json:"address"`
	Before          string     `json:"before"`
	BeforeSensitive [][]string `json:"before_sensitive,omitempty"`
	Status          string     `json:"status,omitempty"`
	// After and Facts are a changed object's refreshed value and facts;
	// absent for a deleted one.
	After   string       `json:"after,omitempty"`
	Facts   *state.Facts `json:"facts,omitempty"`
	Pending bool         `json:"pending,omitempty"`
}

type variableFile struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type outputFile struct {
	Name      string `json:"name"`
	Action    string `json:"action"`
	Before    string `json:"before"`
	After     string `json:"after"`
	Sensitive bool   `json:"sensitive,omitempty"`
}

// WritePlanFile saves a plan with the inputs it was made from.
func WritePlanFile(w io.Writer, sp *SavedPlan) error {
	p := sp.Plan
	f := planFile{Magic: planFileMagic, FormatVersion: PlanFileFormat, RdmaformVersion: sp.RdmaformVersion,
		Prior: p.Prior, Created: p.Timestamp(), Destroy: p.Destroy, RefreshOnly: p.RefreshOnly, Refreshed: p.Refreshed, Inputs: sp.Inputs, Changes: []changeFile{}}
	for _, t := range p.Targets {
		f.Targets = append(f.Targets, t.String())
	}
	for _, r := range p.Replace {
		f.Replace = append(f.Replace, r.String())
	}
	for _, c := range p.Changes {
		cf := changeFile{Addr: c.Addr.String(), Action: c.Action.String(), Reason: string(c.Reason),
			Before: encodeValue(c.BeforeValue()), After: encodeValue(c.AfterValue()),
			RequiredReplace: pathsToStrings(c.RequiredReplace), Changed: pathsToStrings(c.Changed), LiveStatus: c.LiveStatus, LiveError: c.LiveError, ImportID: c.ImportID, Reconnects: c.Reconnects,
			BeforeSensitive: pathsToStrings(c.BeforeSensitive), AfterSensitive: pathsToStrings(c.AfterSensitive), Agent: c.Agent, PriorAgent: c.PriorAgent}
		for _, d := range c.Dependencies {
			cf.Dependencies = append(cf.Dependencies, d.String())
		}
		if c.TargetedVia.Kind != "" {
			cf.TargetedVia = c.TargetedVia.String()
		}
		f.Changes = append(f.Changes, cf)
	}
	for _, d := range p.Drift {
		df := driftFile{Addr: d.Addr.String(), Before: encodeValue(d.Before), BeforeSensitive: pathsToStrings(d.BeforeSensitive), Status: d.Status, Pending: d.Pending}
		if !d.Deleted() {
			facts := d.Facts
			df.After, df.Facts = encodeValue(d.After), &facts
		}
		f.Drift = append(f.Drift, df)
	}
	for _, d := range p.Deposed {
		f.Deposed = append(f.Deposed, deposedFile{Addr: d.Addr.String(), Handle: d.Handle, Token: d.Token, Pending: d.Pending, Failed: d.Failed, Agent: d.Agent})
	}
	for _, m := range p.Moves {
		f.Moves = append(f.Moves, moveFile{From: m.From.String(), To: m.To.String()})
	}
	for _, fg := range p.Forgets {
		f.Forgets = append(f.Forgets, forgetFile{Addr: fg.Addr.String(), Handle: fg.Handle})
	}
	for _, o := range p.OutputChanges {
		f.Outputs = append(f.Outputs, outputFile{Name: o.Name, Action: o.Action.String(), Before: encodeValue(o.Before), After: encodeValue(o.After), Sensitive: o.Sensitive})
	}
	for _, v := range p.Variables {
		f.Variables = append(f.Variables, variableFile{Name: v.Name, Value: encodeValue(v.Value)})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(f)
}

// IsPlanFile reports whether data looks like a saved plan (rather than,
// say, a state file).
func IsPlanFile(data []byte) bool {
	var head struct {
		Magic string `json:"format"`
	}
	return json.Unmarshal(data, &head) == nil && head.Magic == planFileMagic
}

// ReadPlanFile decodes a saved plan.
func ReadPlanFile(data []byte) (*SavedPlan, error) {
	var f planFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("not a saved plan: %v", err)
	}
	if f.Magic != planFileMagic {
		return nil, fmt.Errorf("not a saved plan")
	}
	if f.FormatVersion != PlanFileFormat {
		return nil, fmt.Errorf("saved plan format %d is not supported by this rdmaform (which reads format %d)", f.FormatVersion, PlanFileFormat)
	}
	p := &Plan{Prior: f.Prior, Destroy: f.Destroy, RefreshOnly: f.RefreshOnly, Refreshed: f.Refreshed}
	var err error
	if f.Created != "" {
		p.Created, err = time.Parse(time.RFC3339, f.Created)
	}
	parseAddr := func(s string) addrs.Instance {
		a, e := addrs.ParseInstance(s)
		if e != nil && err == nil {
			err = e
		}
		return a
	}
	decode := func(s string) cty.Value {
		v, e := decodeValue(s)
		if e != nil && err == nil {
			err = e
		}
		return v
	}
	for _, t := range f.Targets {
		p.Targets = append(p.Targets, parseAddr(t))
	}
	for _, r := range f.Replace {
		p.Replace = append(p.Replace, parseAddr(r))
	}
	for _, cf := range f.Changes {
		action, ok := ParseAction(cf.Action)
		if !ok && err == nil {
			err = fmt.Errorf("%s: unknown action %q", cf.Addr, cf.Action)
		}
		c := &Change{Addr: parseAddr(cf.Addr), Action: action, Reason: ActionReason(cf.Reason),
			before: changeValue{v: decode(cf.Before)}, after: changeValue{v: decode(cf.After)},
			RequiredReplace: stringsToPaths(cf.RequiredReplace), Changed: stringsToPaths(cf.Changed), LiveStatus: cf.LiveStatus, LiveError: cf.LiveError, ImportID: cf.ImportID, Reconnects: cf.Reconnects,
			BeforeSensitive: stringsToPaths(cf.BeforeSensitive), AfterSensitive: stringsToPaths(cf.AfterSensitive), Agent: cf.Agent, PriorAgent: cf.PriorAgent}
		for _, d := range cf.Dependencies {
			c.Dependencies = append(c.Dependencies, parseAddr(d).Resource)
		}
		if cf.TargetedVia != "" {
			c.TargetedVia = parseAddr(cf.TargetedVia).Resource
		}
		p.Changes = append(p.Changes, c)
	}
	for _, d := range f.Drift {
		dr := Drift{Addr: parseAddr(d.Addr), Before: decode(d.Before), BeforeSensitive: stringsToPaths(d.BeforeSensitive), Status: d.Status, Pending: d.Pending}
		if d.After != "" && d.Facts != nil {
			dr.After, dr.Facts = decode(d.After), *d.Facts
		}
		p.Drift = append(p.Drift, dr)
	}
	for _, d := range f.Deposed {
		p.Deposed = append(p.Deposed, Deposed{Addr: parseAddr(d.Addr), Handle: d.Handle, Token: d.Token, Pending: d.Pending, Failed: d.Failed, Agent: d.Agent})
	}
	for _, o := range f.Outputs {
		action, _ := ParseAction(o.Action)
		p.OutputChanges = append(p.OutputChanges, OutputChange{Name: o.Name, Action: action, Before: decode(o.Before), After: decode(o.After), Sensitive: o.Sensitive})
	}
	for _, v := range f.Variables {
		p.Variables = append(p.Variables, Variable{Name: v.Name, Value: decode(v.Value)})
	}
	for _, m := range f.Moves {
		p.Moves = append(p.Moves, Move{From: parseAddr(m.From), To: parseAddr(m.To)})
	}
	for _, fg := range f.Forgets {
		p.Forgets = append(p.Forgets, Forget{Addr: parseAddr(fg.Addr), Handle: fg.Handle})
	}
	if err != nil {
		return nil, fmt.Errorf("corrupt saved plan: %v", err)
	}
	p.sortChanges()
	for _, m := range p.Moves {
		if c := p.Change(m.To); c != nil {
			c.PrevAddr = m.From
		}
	}
	return &SavedPlan{Plan: p, Inputs: f.Inputs, RdmaformVersion: f.RdmaformVersion}, nil
}

// savedValue is a value in a saved plan: cty's JSON form, which cannot
// hold unknown values, with the unknowns as nulls listed by path.
type savedValue struct {
	Type     json.RawMessage `json:"type"`
	Value    json.RawMessage `json:"value"`
	Unknowns [][]string      `json:"unknown,omitempty"`
}

// encodeValue keeps unknown values (known after apply) as well as known
// ones.
func encodeValue(v cty.Value) string {
	if v == cty.NilVal {
		return ""
	}
	v, _ = v.UnmarkDeep()
	var unknowns []cty.Path
	known, _ := cty.Transform(v, func(p cty.Path, x cty.Value) (cty.Value, error) {
		if !x.IsKnown() {
			unknowns = append(unknowns, append(cty.Path(nil), p...))
			return cty.NullVal(x.Type()), nil
		}
		return x, nil
	})
	ty, err1 := ctyjson.MarshalType(v.Type())
	val, err2 := ctyjson.Marshal(known, v.Type())
	if err1 != nil || err2 != nil {
		return ""
	}
	b, _ := json.Marshal(savedValue{Type: ty, Value: val, Unknowns: pathsToStrings(unknowns)})
	return base64.StdEncoding.EncodeToString(b)
}

func decodeValue(s string) (cty.Value, error) {
	if s == "" {
		return cty.NullVal(cty.DynamicPseudoType), nil
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return cty.NilVal, err
	}
	var sv savedValue
	if err := json.Unmarshal(b, &sv); err != nil {
		return cty.NilVal, err
	}
	ty, err := ctyjson.UnmarshalType(sv.Type)
	if err != nil {
		return cty.NilVal, err
	}
	v, err := ctyjson.Unmarshal(sv.Value, ty)
	if err != nil {
		return cty.NilVal, err
	}
	if len(sv.Unknowns) == 0 {
		return v, nil
	}
	unknowns := stringsToPaths(sv.Unknowns)
	return cty.Transform(v, func(p cty.Path, x cty.Value) (cty.Value, error) {
		for _, u := range unknowns {
			if u.Equals(p) {
				return cty.UnknownVal(x.Type()), nil
			}
		}
		return x, nil
	})
}

// pathsToStrings writes paths (nil for none): attribute names as they
// are, and element steps as [N] or ["key"] (which no attribute name
// starts with), so that an unknown element of a list stays one element.
func pathsToStrings(ps []cty.Path) [][]string {
	if len(ps) == 0 {
		return nil
	}
	out := make([][]string, 0, len(ps))
	for _, p := range ps {
		s := make([]string, 0, len(p))
		for _, step := range p {
			switch st := step.(type) {
			case cty.GetAttrStep:
				s = append(s, st.Name)
			case cty.IndexStep:
				if st.Key.Type() == cty.String {
					s = append(s, "["+strconv.Quote(st.Key.AsString())+"]")
				} else if st.Key.Type() == cty.Number {
					s = append(s, "["+config.NumberString(st.Key)+"]")
				}
			}
		}
		out = append(out, s)
	}
	return out
}

// stringsToPaths reads pathsToStrings's paths.
func stringsToPaths(ss [][]string) []cty.Path {
	var out []cty.Path
	for _, s := range ss {
		var p cty.Path
		for _, step := range s {
			inner, isIndex := strings.CutPrefix(step, "[")
			inner, _ = strings.CutSuffix(inner, "]")
			switch {
			case !isIndex:
				p = p.GetAttr(step)
			case strings.HasPrefix(inner, `"`):
				key, _ := strconv.Unquote(inner)
				p = p.Index(cty.StringVal(key))
			default:
				n, _ := strconv.Atoi(inner)
				p = p.Index(cty.NumberIntVal(int64(n)))
			}
		}
		out = append(out, p)
	}
	return out
}
