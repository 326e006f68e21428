package state

import (
	"encoding/json"
	"fmt"

	jsonv2 "github.com/go-json-experiment/json"
	jsonv1 "github.com/go-json-experiment/json/v1"
	"github.com/rdmaform/rdmaform/config/addrs"
)

// Op is what a Change does.
type Op rune

const (
	OpPutObject    Op = '+' // add or replace Change.Object
	OpDeleteObject Op = '-' // remove the object at Change.Addr
	OpPutOutput    Op = 'o' // add or replace output Change.Name
	OpDeleteOutput Op = 'x' // remove output Change.Name
	OpMoveObject   Op = 'm' // remove the object at Change.Addr, add Change.Object
)

// Change is one completed change, recorded by a Recorder. Build them with
// PutObject, DeleteObject, PutOutput and DeleteOutput.
type Change struct {
	Op     Op
	Addr   addrs.Instance // OpDeleteObject
	Object *Object        // OpPutObject
	Name   string         // OpPutOutput, OpDeleteOutput
	Output *Output        // OpPutOutput
}

// PutObject records that o was created or updated.
func PutObject(o *Object) Change { return Change{Op: OpPutObject, Object: o.DeepCopy()} }

// MoveObject records that the object at from is now o (at o.Addr), as a
// moved block says: one record, so that no crash leaves it at both
// addresses or at neither.
func MoveObject(from addrs.Instance, o *Object) Change {
	return Change{Op: OpMoveObject, Addr: from, Object: o.DeepCopy()}
}

// DeleteObject records that the object at a was destroyed.
func DeleteObject(a addrs.Instance) Change { return Change{Op: OpDeleteObject, Addr: a} }

// PutOutput records an output value.
func PutOutput(name string, o *Output) Change {
	c := *o
	return Change{Op: OpPutOutput, Name: name, Output: &c}
}

// DeleteOutput records that an output was removed.
func DeleteOutput(name string) Change { return Change{Op: OpDeleteOutput, Name: name} }

// Apply applies c to s.
func (c Change) Apply(s *State) error {
	switch c.Op {
	case OpPutObject:
		if c.Object == nil {
			return fmt.Errorf("state: put-object change without an object")
		}
		s.SetObject(c.Object.DeepCopy())
	case OpDeleteObject:
		s.RemoveObject(c.Addr)
	case OpMoveObject:
		if c.Object == nil {
			return fmt.Errorf("state: move-object change without an object")
		}
		s.RemoveObject(c.Addr)
		s.SetObject(c.Object.DeepCopy())
	case OpPutOutput:
		if c.Output == nil {
			return fmt.Errorf("state: put-output change without a value")
		}
		o := *c.Output
		s.SetOutput(c.Name, &o)
	case OpDeleteOutput:
		delete(s.Outputs, c.Name)
	default:
		return fmt.Errorf("state: unknown change op %q", c.Op)
	}
	return nil
}

type changeJSON struct {
	Op     string      `json:"op"`
	Addr   string      `json:"address,omitempty"`
	Object *objectJSON `json:"object,omitempty"`
	Name   string      `json:"name,omitempty"`
	Output *outputJSON `json:"output,omitempty"`
}

func (c Change) marshal() ([]byte, error) { return marshal(c.toJSON()) }

// appendFrame appends c's journal frame to buf, encoding c in place.
func (c Change) appendFrame(buf []byte) ([]byte, error) {
	buf, start := openFrame(buf)
	if c.Op == OpPutObject || c.Op == OpMoveObject {
		var ok bool
		if buf, ok = appendObjectChange(buf, c); ok {
			return closeFrame(buf, start), nil
		}
	}
	w := appendWriter{&buf}
	if err := jsonv2.MarshalWrite(w, c.toJSON(), jsonv1.DefaultOptionsV1()); err != nil {
		return buf[:start], err
	}
	return closeFrame(buf, start), nil
}

// appendWriter appends what is written to a byte slice.
type appendWriter struct{ b *[]byte }

func (w appendWriter) Write(p []byte) (int, error) {
	*w.b = append(*w.b, p...)
	return len(p), nil
}

func (c Change) toJSON() changeJSON {
	j := changeJSON{Op: string(c.Op), Name: c.Name}
	switch c.Op {
	case OpPutObject:
		j.Object = objectToJSON(c.Object)
	case OpDeleteObject:
		j.Addr = c.Addr.String()
	case OpMoveObject:
		j.Addr, j.Object = c.Addr.String(), objectToJSON(c.Object)
	case OpPutOutput:
		j.Output = &outputJSON{Value: rawOrNull(c.Output.Value), Type: c.Output.Type, Sensitive: c.Output.Sensitive}
	}
	return j
}

func unmarshalChange(b []byte) (Change, error) {
	var j changeJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return Change{}, err
	}
	c := Change{Name: j.Name}
	switch j.Op {
	case string(OpPutObject):
		if j.Object == nil {
			return Change{}, fmt.Errorf("put-object record without an object")
		}
		o, err := objectFromJSON(j.Object)
		if err != nil {
			return Change{}, err
		}
		c.Op, c.Object = OpPutObject, o
	case string(OpDeleteObject):
		a, err := addrs.ParseInstance(j.Addr)
		if err != nil {
			return Change{}, err
		}
		c.Op, c.Addr = OpDeleteObject, a
	case string(OpMoveObject):
		a, err := addrs.ParseInstance(j.Addr)
		if err != nil {
			return Change{}, err
		}
		if j.Object == nil {
			return Change{}, fmt.Errorf("move-object record without an object")
		}
		o, err := objectFromJSON(j.Object)
		if err != nil {
			return Change{}, err
		}
		c.Op, c.Addr, c.Object = OpMoveObject, a, o
	case string(OpPutOutput):
		if j.Output == nil {
			return Change{}, fmt.Errorf("put-output record without a value")
		}
		c.Op, c.Output = OpPutOutput, &Output{Value: j.Output.Value, Type: j.Output.Type, Sensitive: j.Output.Sensitive}
	case string(OpDeleteOutput):
		c.Op = OpDeleteOutput
	default:
		return Change{}, fmt.Errorf("unknown op %q", j.Op)
	}
	return c, nil
}
