package apply

import (
	"context"
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/planner"
)

// An object the apply keeps has the plan's id, one it replaces none until
// it is made again, and one it makes the id it was given.
func TestLookupIDOfKeptReplacedAndMadeObjects(t *testing.T) {
	pd := func(name string) addrs.Instance {
		return addrs.Instance{Resource: addrs.Resource{Kind: addrs.ProtectionDomain, Name: name}}
	}
	change := func(name string, action planner.Action) *planner.Change {
		c := &planner.Change{Addr: pd(name), Action: action}
		c.SetAfter(cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal("pd-" + name)}))
		return c
	}
	p := &planner.Plan{Changes: []*planner.Change{change("kept", planner.NoOp), change("remade", planner.DeleteThenCreate)}}
	e := newExecutor(context.Background(), p, Options{})
	if id, ok := e.lookupID(pd("kept")); !ok || id != "pd-kept" {
		t.Errorf("kept: %q, %v; want pd-kept", id, ok)
	}
	if id, ok := e.lookupID(pd("remade")); ok {
		t.Errorf("remade before it is made: %q", id)
	}
	e.ids[pd("remade")] = "pd-new"
	if id, ok := e.lookupID(pd("remade")); !ok || id != "pd-new" {
		t.Errorf("remade: %q, %v; want pd-new", id, ok)
	}
	if _, ok := e.lookupID(pd("absent")); ok {
		t.Error("an object not in the plan has an id")
	}
}
