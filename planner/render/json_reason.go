package render

import (
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/planner"
)

// JSONReason is a change's action_reason in show -json's plan, as
// Terraform names it: a deleted instance key says whether it was a count
// index or a for_each key, and a destroy plan gives no reason. Reasons
// Terraform has no word for keep rdmaform's own.
func JSONReason(c *planner.Change) string {
	switch c.Reason {
	case planner.ReasonDestroyPlan:
		return ""
	case planner.ReasonNoKey:
		if _, ok := c.Addr.Key.(addrs.StringKey); ok {
			return "delete_because_each_key"
		}
		return "delete_because_count_index"
	}
	return string(c.Reason)
}

// uiReasons are the names Terraform's machine-readable UI (plan -json's
// planned_change) gives the reasons its plan JSON spells otherwise.
var uiReasons = map[string]string{
	string(planner.ReasonTainted):           "tainted",
	string(planner.ReasonReplaceByRequest):  "requested",
	string(planner.ReasonCannotUpdate):      "cannot_update",
	string(planner.ReasonReplaceByTriggers): "replace_triggered_by",
}

// UIReason is a change's reason in a planned_change message.
func UIReason(c *planner.Change) string {
	r := JSONReason(c)
	if ui, ok := uiReasons[r]; ok {
		return ui
	}
	return r
}
