package render

import (
	"encoding/json"
	"testing"

	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/zclconf/go-cty/cty"
)

func TestReasonsAsTerraformNamesThem(t *testing.T) {
	e := addrs.Resource{Kind: addrs.Endpoint, Name: "e"}
	for _, c := range []struct {
		change planner.Change
		json   string
		ui     string
	}{
		{planner.Change{Addr: e.Instance(addrs.IntKey(3)), Reason: planner.ReasonNoKey}, "delete_because_count_index", "delete_because_count_index"},
		{planner.Change{Addr: e.Instance(addrs.StringKey("a")), Reason: planner.ReasonNoKey}, "delete_because_each_key", "delete_because_each_key"},
		{planner.Change{Addr: e.Instance(nil), Reason: planner.ReasonDestroyPlan}, "", ""},
		{planner.Change{Addr: e.Instance(nil), Reason: planner.ReasonTainted}, "replace_because_tainted", "tainted"},
		{planner.Change{Addr: e.Instance(nil), Reason: planner.ReasonCannotUpdate}, "replace_because_cannot_update", "cannot_update"},
		{planner.Change{Addr: e.Instance(nil), Reason: planner.ReasonReplaceByRequest}, "replace_by_request", "requested"},
		{planner.Change{Addr: e.Instance(nil), Reason: planner.ReasonReplaceByTriggers}, "replace_by_triggers", "replace_triggered_by"},
		{planner.Change{Addr: e.Instance(nil), Reason: planner.ReasonGone}, "create_because_gone", "create_because_gone"},
	} {
		if got := JSONReason(&c.change); got != c.json {
			t.Errorf("%s %s: plan JSON reason %q, want %q", c.change.Addr, c.change.Reason, got, c.json)
		}
		if got := UIReason(&c.change); got != c.ui {
			t.Errorf("%s %s: UI reason %q, want %q", c.change.Addr, c.change.Reason, got, c.ui)
		}
	}
}

// A list's elements each say whether they are unknown, as Terraform's
// after_unknown: [false, true].
func TestAfterUnknownOfAList(t *testing.T) {
	v := cty.ObjectVal(map[string]cty.Value{
		"ids":  cty.ListVal([]cty.Value{cty.StringVal("h-1"), cty.UnknownVal(cty.String)}),
		"none": cty.ListValEmpty(cty.String),
		"name": cty.StringVal("x"),
	})
	b, _ := json.Marshal(unknownTree(v))
	if string(b) != `{"ids":[false,true]}` {
		t.Errorf("after_unknown = %s", b)
	}
}
