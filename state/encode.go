package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/google/uuid"
	"github.com/rdmaform/rdmaform/config/addrs"
)

// The JSON document. Addresses are stored in their string form; objects are
// sorted by address so that equal states encode to equal bytes.
type fileJSON struct {
	Version         *int                   `json:"version"`
	RdmaformVersion string                 `json:"rdmaform_version"`
	Serial          uint64                 `json:"serial"`
	Lineage         string                 `json:"lineage"`
	Outputs         map[string]*outputJSON `json:"outputs"`
	Objects         []*objectJSON          `json:"objects"`
}

type objectJSON struct {
	Address string `json:"address"`
	Type    string `json:"type"`
	// The agent's key (agent.compute), absent for the local agent: states
	// written before agent blocks existed have none.
	Agent         string          `json:"agent,omitempty"`
	SchemaVersion int             `json:"schema_version"`
	Attributes    json.RawMessage `json:"attributes"`
	Dependencies  []string        `json:"dependencies,omitempty"`
	Facts         Facts           `json:"facts"`
	// Optional: absent from states written before it existed.
	SensitiveAttributes [][]string `json:"sensitive_attributes,omitempty"`
	// "tainted", as Terraform's instance status, or absent.
	Status string `json:"status,omitempty"`
}

const statusTainted = "tainted"

type outputJSON struct {
	Value     json.RawMessage `json:"value"`
	Type      json.RawMessage `json:"type,omitempty"`
	Sensitive bool            `json:"sensitive,omitempty"`
}

// DecodeError says what is wrong with a state document and where it came
// from.
type DecodeError struct {
	Source string // file name, or a description such as "etcd key /rdmaform/state"
	Msg    string
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("invalid state in %s: %s", e.Source, e.Msg)
}

// Encode returns s's JSON document, indented, with a trailing newline.
func Encode(s *State) ([]byte, error) {
	f, err := toJSON(s)
	if err != nil {
		return nil, err
	}
	b, err := marshal(f, jsontext.WithIndent("  "))
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// encodeContent encodes only what SameContent compares.
func encodeContent(s *State) ([]byte, error) {
	f, err := toJSON(s)
	if err != nil {
		return nil, err
	}
	f.Serial, f.Lineage, f.RdmaformVersion = 0, "", ""
	return marshal(f)
}

// marshal encodes v byte for byte as encoding/json does (MarshalIndent
// with jsontext.WithIndent), with the go-json-experiment encoder the
// decoder uses: about 1.5 times faster for a state of endpoints. (Invalid
// UTF-8, which neither cty values nor the agent's facts hold, would become
// a literal U+FFFD instead of encoding/json's \ufffd.)
func marshal(v any, opts ...jsonv2.Options) ([]byte, error) {
	return jsonv2.Marshal(v, append([]jsonv2.Options{jsonv1.DefaultOptionsV1()}, opts...)...)
}

func toJSON(s *State) (*fileJSON, error) {
	v := FormatVersion
	f := &fileJSON{
		Version:         &v,
		RdmaformVersion: s.RdmaformVersion,
		Serial:          s.Serial,
		Lineage:         s.Lineage,
		Outputs:         map[string]*outputJSON{},
		Objects:         []*objectJSON{},
	}
	if f.RdmaformVersion == "" {
		f.RdmaformVersion = RdmaformVersion
	}
	for _, a := range s.Addresses() {
		o := s.Objects[a.String()]
		if o == nil {
			return nil, fmt.Errorf("state: nil object at %s", a)
		}
		f.Objects = append(f.Objects, objectToJSON(o))
	}
	for k, o := range s.Objects {
		if k != o.Addr.String() {
			return nil, fmt.Errorf("state: object %s stored under key %q", o.Addr, k)
		}
	}
	for n, o := range s.Outputs {
		f.Outputs[n] = &outputJSON{Value: rawOrNull(o.Value), Type: o.Type, Sensitive: o.Sensitive}
	}
	return f, nil
}

func objectToJSON(o *Object) *objectJSON {
	j := &objectJSON{
		Address:       o.Addr.String(),
		Type:          string(o.Addr.Kind),
		Agent:         o.Agent,
		SchemaVersion: o.SchemaVersion,
		Attributes:    rawOrNull(o.Attributes),
		Facts:         o.Facts,

		SensitiveAttributes: o.SensitiveAttributes,
	}
	if o.Tainted {
		j.Status = statusTainted
	}
	for _, d := range o.Dependencies {
		j.Dependencies = append(j.Dependencies, d.String())
	}
	return j
}

func rawOrNull(r json.RawMessage) json.RawMessage {
	if len(r) == 0 {
		return json.RawMessage("null")
	}
	return r
}

// decodeChecked is Decode with encoding/json, which explains every problem
// precisely (the line, the field, a newer format version); Decode uses it
// whenever its fast path finds anything amiss.
func decodeChecked(data []byte, source string) (*State, error) {
	fail := func(format string, args ...any) (*State, error) {
		return nil, &DecodeError{Source: source, Msg: fmt.Sprintf(format, args...)}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return fail("the file is empty; a state file holds a JSON object (%sremove the file to start with no state)", backupHint(source))
	}
	// Read the version alone first, so that a newer format is reported as
	// such rather than as whatever else it changed.
	var head struct {
		Version          json.RawMessage `json:"version"`
		RdmaformVersion  any             `json:"rdmaform_version"`
		TerraformVersion string          `json:"terraform_version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return fail("%s", jsonProblem(data, err, source))
	}
	if head.TerraformVersion != "" && head.RdmaformVersion == nil {
		return fail("this is a Terraform (or OpenTofu) state, written by Terraform %s, not an rdmaform state: rdmaform keeps its own state (rdmaform.rdmastate), of RDMA objects only", head.TerraformVersion)
	}
	if head.Version == nil {
		return fail(`no "version" field: this is not an rdmaform state file`)
	}
	var version int
	if err := json.Unmarshal(head.Version, &version); err != nil || version < 1 {
		return fail(`"version" must be a positive integer, got %s`, head.Version)
	}
	if version > FormatVersion {
		by := ""
		if v, ok := head.RdmaformVersion.(string); ok && v != "" {
			by = " by rdmaform " + v
		}
		return fail("state format version %d was written%s; this rdmaform (%s) understands format version %d and older. Upgrade rdmaform to use this state", version, by, RdmaformVersion, FormatVersion)
	}

	var f fileJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&f); err != nil {
		return fail("%s", jsonProblem(data, err, source))
	}
	if _, err := dec.Token(); err != io.EOF {
		return fail("unexpected data after the JSON object")
	}
	if f.Lineage == "" {
		return fail(`no "lineage"`)
	}
	if _, err := uuid.Parse(f.Lineage); err != nil {
		return fail("lineage %q is not a UUID", f.Lineage)
	}
	s := &State{
		Lineage:         f.Lineage,
		Serial:          f.Serial,
		RdmaformVersion: f.RdmaformVersion,
		Objects:         make(map[string]*Object, len(f.Objects)),
		Outputs:         make(map[string]*Output, len(f.Outputs)),
	}
	for i, oj := range f.Objects {
		if oj == nil {
			return fail("objects[%d] is null", i)
		}
		o, err := objectFromJSON(oj)
		if err != nil {
			return fail("objects[%d]: %s", i, err)
		}
		k := o.Addr.String()
		if _, dup := s.Objects[k]; dup {
			return fail("objects[%d]: duplicate address %s", i, k)
		}
		s.Objects[k] = o
	}
	for n, oj := range f.Outputs {
		if oj == nil {
			return fail("output %q is null", n)
		}
		if !validOutputName(n) {
			return fail("invalid output name %q", n)
		}
		s.Outputs[n] = &Output{Value: rawOrNull(oj.Value), Type: oj.Type, Sensitive: oj.Sensitive}
	}
	return s, nil
}

func objectFromJSON(oj *objectJSON) (*Object, error) { return objectFromParts(oj, false) }

// objectFromParts is objectFromJSON; with owned, oj.Attributes is already
// compact and belongs to the object.
func objectFromParts(oj *objectJSON, owned bool) (*Object, error) {
	a, err := addrs.ParseInstance(oj.Address)
	if err != nil {
		return nil, err
	}
	if oj.Type != string(a.Kind) {
		return nil, fmt.Errorf("%s has type %q; its address says %q", oj.Address, oj.Type, a.Kind)
	}
	if oj.SchemaVersion < 0 {
		return nil, fmt.Errorf("%s has a negative schema_version", oj.Address)
	}
	attrs := bytes.TrimSpace(oj.Attributes)
	if len(attrs) > 0 && attrs[0] != '{' && string(attrs) != "null" {
		return nil, fmt.Errorf("%s: attributes must be a JSON object", oj.Address)
	}
	if string(attrs) == "null" {
		attrs = nil
	}
	if !owned {
		attrs = compact(attrs)
	}
	switch oj.Status {
	case "", statusTainted:
	default:
		return nil, fmt.Errorf("%s: unknown status %q (an object is \"tainted\" or has no status)", oj.Address, oj.Status)
	}
	if oj.Agent != "" && !strings.HasPrefix(oj.Agent, "agent.") {
		return nil, fmt.Errorf("%s: agent %q is not an agent's address (agent.NAME)", oj.Address, oj.Agent)
	}
	o := &Object{Addr: a, SchemaVersion: oj.SchemaVersion, Attributes: attrs, Facts: oj.Facts, Agent: oj.Agent, Tainted: oj.Status == statusTainted}
	for i, p := range oj.SensitiveAttributes {
		if len(p) == 0 {
			return nil, fmt.Errorf("%s: sensitive_attributes[%d] is an empty path", oj.Address, i)
		}
		for _, name := range p {
			if name == "" {
				return nil, fmt.Errorf("%s: sensitive_attributes[%d] has an empty attribute name", oj.Address, i)
			}
		}
	}
	if len(oj.SensitiveAttributes) > 0 {
		o.SensitiveAttributes = oj.SensitiveAttributes
	}
	seen := map[string]bool{}
	for _, d := range oj.Dependencies {
		da, err := addrs.ParseInstance(d)
		if err != nil {
			return nil, fmt.Errorf("%s: dependency: %s", oj.Address, err)
		}
		if seen[da.String()] {
			return nil, fmt.Errorf("%s: dependency %s listed twice", oj.Address, d)
		}
		seen[da.String()] = true
		o.Dependencies = append(o.Dependencies, da)
	}
	sort.Slice(o.Dependencies, func(i, j int) bool { return o.Dependencies[i].Less(o.Dependencies[j]) })
	return o, nil
}

// compact returns b compacted, in memory of its own.
func compact(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return cloneRaw(b)
	}
	return buf.Bytes()
}

func validOutputName(n string) bool {
	if n == "" {
		return false
	}
	return !strings.ContainsAny(n, " \t\n\"")
}

// jsonProblem turns a JSON error into a sentence with a line number.
func jsonProblem(data []byte, err error, source string) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || err.Error() == "unexpected end of JSON input":
		return truncated(source)
	case errors.As(err, &syn):
		if syn.Offset >= int64(len(data)) {
			return truncated(source)
		}
		return fmt.Sprintf("not valid JSON at line %d: %s", lineOf(data, syn.Offset), syn.Error())
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			return fmt.Sprintf("the document must be a JSON object, found a JSON %s", typ.Value)
		}
		return fmt.Sprintf("field %q must not be a JSON %s (line %d)", field, typ.Value, lineOf(data, typ.Offset))
	}
	return "not valid JSON: " + err.Error()
}

func truncated(source string) string {
	msg := "the file is truncated (the JSON document ends early)"
	if h := backupHint(source); h != "" {
		msg += "; " + strings.TrimSuffix(h, ", or ")
	}
	return msg
}

func lineOf(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// backupHint names the backup of a local state file to restore, if there
// is one.
func backupHint(source string) string {
	if fi, err := os.Stat(source + ".backup"); err == nil && fi.Mode().IsRegular() {
		return fmt.Sprintf("restore %s.backup, or ", source)
	}
	return ""
}
