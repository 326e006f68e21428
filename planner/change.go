package planner

import (
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
)

// Change is the planned change of one object.
type Change struct {
	Addr   addrs.Instance
	Action Action
	Reason ActionReason
	// Before is the object as the state records it (a null value of the
	// kind's type when it is not in the state, or when it is gone).
	// After is the desired object (null for Delete); attributes known only
	// after apply are unknown.
	Before, After cty.Value
	// RequiredReplace lists the changed attributes that force replacement.
	RequiredReplace []cty.Path
	// Changed lists every changed attribute path (for Update, what the
	// agent must change in place).
	Changed []cty.Path
	// Dependencies are the blocks this object must be created after (and
	// deleted before): the configuration's dependencies for configured
	// objects, the state's for the others. Blocks rather than instances
	// keep the graph linear when every endpoint uses every listener.
	Dependencies []addrs.Resource
	// LiveStatus is what the agent reported of an object replaced because
	// it failed (ReasonFailed).
	LiveStatus string
}

// Kind is the object's kind.
func (c *Change) Kind() addrs.Kind { return c.Addr.Kind }
