package state

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/google/uuid"
	"github.com/rdmaform/rdmaform/config/addrs"
)

// FormatVersion is the version of the state document this build writes and
// the newest it can read.
const FormatVersion = 1

// RdmaformVersion is the release of rdmaform this build is, recorded in
// every state and lock it writes; the CLI's version is this one.
const RdmaformVersion = "0.1.0"

// State is everything rdmaform knows about the objects it manages.
//
// Objects is keyed by the object's address in string form
// (addr.String()); use the methods rather than the map to keep the key and
// Object.Addr in step.
type State struct {
	Lineage         string
	Serial          uint64
	RdmaformVersion string
	Objects         map[string]*Object
	Outputs         map[string]*Output
}

// New returns an empty state with a fresh lineage.
func New() *State {
	return &State{
		Lineage:         uuid.NewString(),
		RdmaformVersion: RdmaformVersion,
		Objects:         map[string]*Object{},
		Outputs:         map[string]*Output{},
	}
}

// Object returns the object at addr, or nil.
func (s *State) Object(addr addrs.Instance) *Object {
	return s.Objects[addr.String()]
}

// SetObject adds or replaces o, keyed by o.Addr.
func (s *State) SetObject(o *Object) {
	if s.Objects == nil {
		s.Objects = map[string]*Object{}
	}
	s.Objects[o.Addr.String()] = o
}

// RemoveObject removes the object at addr and reports whether it existed.
func (s *State) RemoveObject(addr addrs.Instance) bool {
	k := addr.String()
	_, ok := s.Objects[k]
	delete(s.Objects, k)
	return ok
}

// MoveObject renames the object at src to dst. Both must be of the same
// kind, src must exist and dst must not.
func (s *State) MoveObject(src, dst addrs.Instance) error {
	o := s.Object(src)
	if o == nil {
		return fmt.Errorf("no object at %s in the state", src)
	}
	if src.Kind != dst.Kind {
		return fmt.Errorf("cannot move %s to %s: an object cannot change kind (%s to %s)", src, dst, src.Kind, dst.Kind)
	}
	if s.Object(dst) != nil {
		return fmt.Errorf("cannot move %s to %s: %s already exists in the state", src, dst, dst)
	}
	s.RemoveObject(src)
	if o.Facts.AgentHandle == "" {
		// The agent keeps holding it by the name it was made under.
		o.Facts.AgentHandle = src.String()
	}
	o.Addr = dst
	s.SetObject(o)
	return nil
}

// Addresses returns the address of every object, in addrs.Instance.Less
// order.
func (s *State) Addresses() []addrs.Instance {
	out := make([]addrs.Instance, 0, len(s.Objects))
	for _, o := range s.Objects {
		out = append(out, o.Addr)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Less(out[j]) })
	return out
}

// SetOutput adds or replaces the output called name.
func (s *State) SetOutput(name string, o *Output) {
	if s.Outputs == nil {
		s.Outputs = map[string]*Output{}
	}
	s.Outputs[name] = o
}

// OutputNames returns the output names, sorted.
func (s *State) OutputNames() []string {
	out := make([]string, 0, len(s.Outputs))
	for n := range s.Outputs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// DeepCopy returns a copy sharing nothing mutable with s.
func (s *State) DeepCopy() *State {
	if s == nil {
		return nil
	}
	c := *s
	c.Objects = make(map[string]*Object, len(s.Objects))
	for k, o := range s.Objects {
		c.Objects[k] = o.DeepCopy()
	}
	c.Outputs = make(map[string]*Output, len(s.Outputs))
	for k, o := range s.Outputs {
		oc := *o
		oc.Value = cloneRaw(o.Value)
		oc.Type = cloneRaw(o.Type)
		c.Outputs[k] = &oc
	}
	return &c
}

// SameContent reports whether a and b hold the same objects and outputs,
// ignoring serial, lineage and writer version.
func SameContent(a, b *State) bool {
	if a == nil || b == nil {
		return a == b
	}
	if len(a.Objects) != len(b.Objects) || len(a.Outputs) != len(b.Outputs) {
		return false // without encoding both: an apply that made objects ends here
	}
	ea, err1 := encodeContent(a)
	eb, err2 := encodeContent(b)
	return err1 == nil && err2 == nil && string(ea) == string(eb)
}

func cloneRaw(r json.RawMessage) json.RawMessage {
	if r == nil {
		return nil
	}
	return append(json.RawMessage(nil), r...)
}
