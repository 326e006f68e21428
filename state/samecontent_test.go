package state

import (
	"encoding/json"
	"testing"
)

func TestSameContent(t *testing.T) {
	build := func(n int, output bool) *State {
		s := New()
		for i := range n {
			s.SetObject(testObject(t, "endpoint.e["+string(rune('0'+i))+"]", i))
		}
		if output {
			s.Outputs["o"] = &Output{Value: json.RawMessage(`"x"`)}
		}
		return s
	}
	a := build(3, true)
	b := build(3, true)
	b.Serial, b.Lineage = 9, "other"
	if !SameContent(a, b) {
		t.Error("states that differ only in serial and lineage differ")
	}
	if SameContent(a, build(2, true)) || SameContent(build(2, true), a) {
		t.Error("states with 3 and 2 objects are the same")
	}
	if SameContent(a, build(3, false)) {
		t.Error("a state with an output is the same as one without")
	}
	c := build(3, true)
	c.Objects["endpoint.e[1]"].Facts.QPNum = 77
	if SameContent(a, c) {
		t.Error("states whose object facts differ are the same")
	}
	if SameContent(a, nil) || !SameContent(nil, nil) {
		t.Error("nil states")
	}
}
