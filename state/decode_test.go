package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"github.com/rdmaform/rdmaform/config/addrs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const goodState = `{"version":1,"lineage":"8a3c0e2e-3f0c-4b7e-9a57-3c1a3f9d2c11","serial":3,"rdmaform_version":"0.1.0",
 "objects":[{"address":"endpoint.client[3]","type":"endpoint","schema_version":1,"attributes":{"device":"mlx5_0"},"facts":{"qp_num":7}}],
 "outputs":{}}`

func TestDecodeBadInput(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		want       string
	}{
		{"empty", "", "the file is empty"},
		{"whitespace", " \n\t", "the file is empty"},
		{"truncated", goodState[:len(goodState)/2], "truncated"},
		{"not JSON", "endpoint.client = 1\n", "not valid JSON at line 1"},
		{"not an object", "[1,2]", "must be a JSON object"},
		{"no version", `{"lineage":"8a3c0e2e-3f0c-4b7e-9a57-3c1a3f9d2c11"}`, `no "version" field`},
		{"bad version", `{"version":"one"}`, `"version" must be a positive integer`},
		{"newer version", `{"version":2,"rdmaform_version":"0.9.0","lineage":"x"}`, "state format version 2 was written by rdmaform 0.9.0; this rdmaform (0.1.0) understands format version 1 and older. Upgrade rdmaform"},
		{"no lineage", `{"version":1}`, `no "lineage"`},
		{"bad lineage", `{"version":1,"lineage":"abc"}`, `lineage "abc" is not a UUID`},
		{"duplicate address", strings.Replace(goodState, `"objects":[`, `"objects":[{"address":"endpoint.client[3]","type":"endpoint"},`, 1), "objects[1]: duplicate address endpoint.client[3]"},
		{"bad address", strings.Replace(goodState, `endpoint.client[3]`, `widget.x`, 1), `objects[0]: invalid address "widget.x"`},
		{"kind mismatch", strings.Replace(goodState, `"type":"endpoint"`, `"type":"listener"`, 1), `has type "listener"; its address says "endpoint"`},
		{"wrong field type", strings.Replace(goodState, `"serial":3`, `"serial":"3"`, 1), `field "serial" must not be a JSON string (line 1)`},
		{"attributes not object", strings.Replace(goodState, `{"device":"mlx5_0"}`, `[1]`, 1), "attributes must be a JSON object"},
		{"trailing data", goodState + "{}", "after top-level value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode([]byte(tc.data), "dir/rdmaform.rdmastate")
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("want a *DecodeError, got %v", err)
			}
			msg := err.Error()
			if !strings.Contains(msg, "dir/rdmaform.rdmastate") || !strings.Contains(msg, tc.want) {
				t.Fatalf("error %q does not name the file and say %q", msg, tc.want)
			}
		})
	}
}

// A state file that does not decode is never overwritten: RefreshState
// fails and a following PersistState writes nothing.
func TestBadFileIsNotOverwritten(t *testing.T) {
	for _, data := range []string{"", goodState[:40], `{"version":7,"lineage":"x"}`, "garbage"} {
		p := filepath.Join(t.TempDir(), DefaultPath)
		os.WriteFile(p, []byte(data), 0o600)
		m := NewFilesystem(LocalOptions{Path: p})
		if err := m.RefreshState(); err == nil {
			t.Fatalf("%q: RefreshState succeeded", data)
		}
		if err := m.PersistState(); err != nil {
			t.Fatal(err)
		}
		m.WriteState(New())
		err := m.PersistState()
		if err == nil || !strings.Contains(err.Error(), "changed since rdmaform read it") {
			t.Fatalf("%q: writing over an unreadable file: %v", data, err)
		}
		got, _ := os.ReadFile(p)
		if !bytes.Equal(got, []byte(data)) {
			t.Fatalf("%q was overwritten with %q", data, got)
		}
	}
}

func TestJournalBadInput(t *testing.T) {
	p := filepath.Join(t.TempDir(), DefaultPath)
	m := NewFilesystem(LocalOptions{Path: p})
	s := New()
	m.WriteState(s)
	m.PersistState()
	os.WriteFile(p+".journal", appendFrame(nil, []byte(`{"rdmaform_journal":1,"lineage":"8a3c0e2e-3f0c-4b7e-9a57-3c1a3f9d2c11","serial":1}`)), 0o600)
	err := m.RefreshState()
	if err == nil || !strings.Contains(err.Error(), "belongs to a different state") || !strings.Contains(err.Error(), p+".journal") {
		t.Fatalf("a foreign journal: %v", err)
	}
	os.WriteFile(p+".journal", appendFrame(nil, []byte(`{"rdmaform_journal":1,"lineage":"`+s.Lineage+`","serial":9}`)), 0o600)
	if err := m.RefreshState(); err == nil || !strings.Contains(err.Error(), "replaced by an older one") {
		t.Fatalf("a journal newer than the file: %v", err)
	}
	os.WriteFile(p+".journal", appendFrame(nil, []byte(`not json`)), 0o600)
	if err := m.RefreshState(); err == nil || !strings.Contains(err.Error(), "not an rdmaform journal") {
		t.Fatalf("a garbage journal: %v", err)
	}
	// A torn last frame is an unacknowledged record: dropped silently.
	hdr := appendFrame(nil, []byte(`{"rdmaform_journal":1,"lineage":"`+s.Lineage+`","serial":1}`))
	c, _ := PutObject(testObject(t, "endpoint.a", 1)).marshal()
	full := appendFrame(hdr, c)
	os.WriteFile(p+".journal", full[:len(full)-3], 0o600)
	if err := m.RefreshState(); err != nil || len(m.State().Objects) != 0 {
		t.Fatalf("a torn record: %v", err)
	}
	os.WriteFile(p+".journal", full, 0o600)
	if err := m.RefreshState(); err != nil || len(m.State().Objects) != 1 {
		t.Fatalf("a whole record: %v", err)
	}
}

// An object's sensitive_attributes round-trip through both decoders and
// the journal's changes; a state without them (as every state written
// before they existed) decodes with none, and a malformed path is
// refused with a message naming the object.
func TestSensitiveAttributes(t *testing.T) {
	if s, err := Decode([]byte(goodState), "old.rdmastate"); err != nil || s.Objects["endpoint.client[3]"].SensitiveAttributes != nil {
		t.Fatalf("a state without sensitive_attributes: %v %+v", err, s)
	}
	withPaths := strings.Replace(goodState, `"facts":{"qp_num":7}`, `"facts":{"qp_num":7},"sensitive_attributes":[["connect","private_data"],["port"]]`, 1)
	s, err := Decode([]byte(withPaths), "new.rdmastate")
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"connect", "private_data"}, {"port"}}
	if got := s.Objects["endpoint.client[3]"].SensitiveAttributes; !reflect.DeepEqual(got, want) {
		t.Fatalf("decoded %v, want %v", got, want)
	}
	if !checkFastAgrees(t, []byte(withPaths)) {
		t.Fatal("the fast path refused sensitive_attributes")
	}
	enc, err := Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(enc), `"sensitive_attributes"`) {
		t.Fatalf("Encode dropped sensitive_attributes:\n%s", enc)
	}
	s2, err := Decode(enc, "again")
	if err != nil || !reflect.DeepEqual(s2.Objects["endpoint.client[3]"].SensitiveAttributes, want) {
		t.Fatalf("after a round trip: %v %+v", err, s2)
	}
	if enc, _ := Encode(New()); strings.Contains(string(enc), "sensitive_attributes") {
		t.Fatal("an object without sensitive attributes writes the field")
	}
	cj, err := PutObject(s.Objects["endpoint.client[3]"]).marshal()
	if err != nil {
		t.Fatal(err)
	}
	if c, err := unmarshalChange(cj); err != nil || !reflect.DeepEqual(c.Object.SensitiveAttributes, want) {
		t.Fatalf("a journal change lost sensitive_attributes: %v %s", err, cj)
	}
	for bad, msg := range map[string]string{
		`[[]]`:            "sensitive_attributes[0] is an empty path",
		`[["port"],[""]]`: "sensitive_attributes[1] has an empty attribute name",
	} {
		doc := strings.Replace(goodState, `"facts":{"qp_num":7}`, `"facts":{},"sensitive_attributes":`+bad, 1)
		if _, err := Decode([]byte(doc), "bad.rdmastate"); err == nil || !strings.Contains(err.Error(), msg) || !strings.Contains(err.Error(), "endpoint.client[3]") {
			t.Errorf("%s: %v, want %q", bad, err, msg)
		}
	}
}

func TestTaintedStatus(t *testing.T) {
	tainted := strings.Replace(goodState, `"facts":{"qp_num":7}`, `"facts":{"qp_num":7},"status":"tainted"`, 1)
	s, err := Decode([]byte(tainted), "tainted.rdmastate")
	if err != nil || !s.Objects["endpoint.client[3]"].Tainted {
		t.Fatalf("decoding a tainted object: %v %+v", err, s)
	}
	if !checkFastAgrees(t, []byte(tainted)) {
		t.Fatal("the fast path refused the status")
	}
	enc, err := Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	if s2, err := Decode(enc, "again"); err != nil || !s2.Objects["endpoint.client[3]"].Tainted {
		t.Fatalf("after a round trip: %v\n%s", err, enc)
	}
	cj, err := PutObject(s.Objects["endpoint.client[3]"]).marshal()
	if err != nil {
		t.Fatal(err)
	}
	if c, err := unmarshalChange(cj); err != nil || !c.Object.Tainted {
		t.Fatalf("a journal change lost the status: %v %s", err, cj)
	}
	if s, _ := Decode([]byte(goodState), "good"); s.Objects["endpoint.client[3]"].Tainted {
		t.Fatal("an object without a status decodes tainted")
	}
	if enc, _ := Encode(s); !strings.Contains(string(enc), `"status": "tainted"`) {
		t.Fatalf("Encode wrote no status:\n%s", enc)
	}
	bad := strings.Replace(goodState, `"facts":{"qp_num":7}`, `"facts":{},"status":"deposed"`, 1)
	if _, err := Decode([]byte(bad), "bad.rdmastate"); err == nil || !strings.Contains(err.Error(), `unknown status "deposed"`) {
		t.Fatalf("an unknown status: %v", err)
	}
}

// Encode and the journal's records are written by go-json-experiment's
// encoder with encoding/json's options: the bytes must be those
// encoding/json writes, so that files stay as they were.
func TestEncodeWritesWhatEncodingJSONWrites(t *testing.T) {
	s, err := Decode([]byte(strings.Replace(goodState, `"facts":{"qp_num":7}`, `"facts":{"qp_num":7},"status":"tainted","sensitive_attributes":[["port"]]`, 1)), "t")
	if err != nil {
		t.Fatal(err)
	}
	s.SetObject(testObject(t, "endpoint.e[\"ü<&>\"]", 2))
	s.Outputs["html"] = &Output{Value: json.RawMessage(`{"a": [1, 2.50], "b": "<&> \u2028"}`), Type: json.RawMessage(`["object",{"a":["list","number"],"b":"string"}]`), Sensitive: true}
	f, err := toJSON(s)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.MarshalIndent(f, "", "  ")
	if got, err := Encode(s); err != nil || string(got) != string(want)+"\n" {
		t.Fatalf("Encode: %v\n%s\nwant\n%s", err, got, want)
	}
	for _, a := range s.Addresses() {
		c := PutObject(s.Object(a))
		got, err := c.marshal()
		want, _ := json.Marshal(changeJSON{Op: string(c.Op), Object: objectToJSON(c.Object)})
		if err != nil || string(got) != string(want) {
			t.Fatalf("journal record of %s: %v\n%s\nwant\n%s", a, err, got, want)
		}
		// The journal encodes in place, after what its batch holds.
		framed, err := c.appendFrame([]byte("before"))
		if wantFrame := appendFrame([]byte("before"), want); err != nil || string(framed) != string(wantFrame) {
			t.Fatalf("journal frame of %s: %v\n%q\nwant\n%q", a, err, framed, wantFrame)
		}
	}
}

// A move is one journal record: replayed, the object is at its new
// address only.
func TestMoveObjectRecord(t *testing.T) {
	s, err := Decode([]byte(goodState), "good")
	if err != nil {
		t.Fatal(err)
	}
	from := s.Objects["endpoint.client[3]"].Addr
	moved := *s.Objects["endpoint.client[3]"]
	moved.Addr, _ = addrs.ParseInstance(`endpoint.clients["c"]`)
	moved.Facts.AgentHandle = "endpoint.client[3]"
	raw, err := MoveObject(from, &moved).marshal()
	if err != nil {
		t.Fatal(err)
	}
	c, err := unmarshalChange(raw)
	if err != nil || c.Op != OpMoveObject || c.Addr != from || c.Object.Addr != moved.Addr {
		t.Fatalf("round trip of %s: %v %+v", raw, err, c)
	}
	if err := c.Apply(s); err != nil {
		t.Fatal(err)
	}
	if s.Object(from) != nil || s.Object(moved.Addr) == nil || s.Object(moved.Addr).Facts.AgentHandle != "endpoint.client[3]" {
		t.Fatalf("after the move: %v", s.Addresses())
	}
	if _, err := unmarshalChange([]byte(`{"op":"m","address":"endpoint.client[3]"}`)); err == nil || !strings.Contains(err.Error(), "without an object") {
		t.Fatalf("a move record without its object: %v", err)
	}
}

// An object's agent round-trips through both decoders, Encode and the
// journal's records; a state written before agents existed decodes with
// the local agent (""), and one without an agent writes no field.
func TestAgentRoundTrip(t *testing.T) {
	if s, err := Decode([]byte(goodState), "old.rdmastate"); err != nil || s.Objects["endpoint.client[3]"].Agent != "" {
		t.Fatalf("a state without agents: %v %+v", err, s)
	}
	if enc, _ := Encode(mustDecode(t, goodState)); strings.Contains(string(enc), `"agent"`) {
		t.Fatalf("an object on the local agent writes the field:\n%s", enc)
	}
	const agent = `agent.storage["s1"]`
	withAgent := strings.Replace(goodState, `"facts":{"qp_num":7}`, `"facts":{"qp_num":7},"agent":"agent.storage[\"s1\"]"`, 1)
	s, err := Decode([]byte(withAgent), "new.rdmastate")
	if err != nil || s.Objects["endpoint.client[3]"].Agent != agent {
		t.Fatalf("decoding an agent: %v %+v", err, s)
	}
	if !checkFastAgrees(t, []byte(withAgent)) {
		t.Fatal("the fast path refused the agent")
	}
	enc, err := Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	if s2, err := Decode(enc, "again"); err != nil || s2.Objects["endpoint.client[3]"].Agent != agent {
		t.Fatalf("after a round trip: %v\n%s", err, enc)
	}
	for _, c := range []Change{PutObject(s.Objects["endpoint.client[3]"]), MoveObject(mustAddr(t, "endpoint.old"), s.Objects["endpoint.client[3]"])} {
		framed, err := c.appendFrame(nil)
		if err != nil {
			t.Fatal(err)
		}
		cj, err := c.marshal()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(framed), string(cj)) {
			t.Fatalf("the journal's frame %q does not hold the record %s", framed, cj)
		}
		if got, err := unmarshalChange(cj); err != nil || got.Object.Agent != agent {
			t.Fatalf("a journal record lost the agent: %v %s", err, cj)
		}
	}
	bad := strings.Replace(goodState, `"facts":{"qp_num":7}`, `"facts":{},"agent":"compute"`, 1)
	if _, err := Decode([]byte(bad), "bad.rdmastate"); err == nil || !strings.Contains(err.Error(), `agent "compute" is not an agent's address`) || !strings.Contains(err.Error(), "endpoint.client[3]") {
		t.Fatalf("a malformed agent: %v", err)
	}
}

func mustDecode(t *testing.T, doc string) *State {
	t.Helper()
	s, err := Decode([]byte(doc), "test")
	if err != nil {
		t.Fatal(err)
	}
	return s
}
