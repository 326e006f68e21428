package planner

import (
	"slices"

	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/state"
	"github.com/zclconf/go-cty/cty"
)

// Change is the planned change of one object.
type Change struct {
	Addr   addrs.Instance
	Action Action
	Reason ActionReason
	// before (BeforeValue) is the object as the state records it (a null
	// value of the kind's type when it is not in the state, or when it is
	// gone). after (AfterValue) is the desired object (null for Delete);
	// attributes known only after apply are unknown. Unexported so that
	// every reader goes through the accessors: the state's object is made
	// only when read (see fields.value), which a no-change plan of 10,000
	// objects mostly never does.
	before, after changeValue
	// BeforeSensitive and AfterSensitive list the attributes of before
	// and after whose value is sensitive, which renderers show as
	// (sensitive value) while before and after hold the values
	// themselves (unmarked). After's come from the configuration
	// (config.Instance.Sensitive); Before's from what the state records
	// (state.Object.SensitiveAttributes) and, for an object still
	// configured, from the configuration too, since a state may predate
	// the record. Nil when none; shared, never changed in place.
	BeforeSensitive, AfterSensitive []cty.Path
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
	// LiveError is the agent's last error for that object ("CALL: ERRNO"),
	// if any.
	LiveError string
	// PrevAddr is where the state records the object when a moved block
	// moves it to Addr (see Plan.Moves); the zero Instance otherwise.
	PrevAddr addrs.Instance
	// ImportID is, for a Create an import block turns into an import, the
	// agent's name for the object apply adopts; "" otherwise.
	ImportID string
	// TargetedVia is, in a targeted destroy plan, the block whose
	// destruction brings this object's (it depends on that block, so it
	// goes first); the zero Resource otherwise.
	TargetedVia addrs.Resource
	// Agent is the key of the agent holding the object once the change is
	// made ("" for the local agent): the configuration's for a configured
	// object, the state's for one being destroyed. PriorAgent is the
	// state's, for an object the state records ("" otherwise).
	Agent, PriorAgent string
	// Reconnects: an Update of an endpoint whose listener is replaced
	// and which reconnects by itself (it has a reconnect block): apply
	// waits for its new connection and records its facts (QP number,
	// local port), which the plan shows known after apply.
	Reconnects bool
}

// changeValue is a Change's before or after value: v, or the object of
// the prior from, made when read.
type changeValue struct {
	v    cty.Value
	from *prior
}

func (cv changeValue) get() cty.Value {
	if cv.from != nil {
		return cv.from.value()
	}
	return cv.v
}

// BeforeValue is the object as the state records it (see Change).
func (c *Change) BeforeValue() cty.Value { return c.before.get() }

// AfterValue is the desired object (see Change).
func (c *Change) AfterValue() cty.Value { return c.after.get() }

// SetBefore sets BeforeValue.
func (c *Change) SetBefore(v cty.Value) { c.before = changeValue{v: v} }

// SetAfter sets AfterValue.
func (c *Change) SetAfter(v cty.Value) { c.after = changeValue{v: v} }

// AgentChanged reports whether the configuration puts on another agent an
// object the state records: an object lives on its host, so it is
// replaced (destroyed on the old agent, made on the new).
func (c *Change) AgentChanged() bool {
	if c.Agent == c.PriorAgent {
		return false
	}
	if pr := c.before.from; pr != nil {
		return !pr.null()
	}
	return c.before.v.Type() != cty.NilType && !c.before.v.IsNull()
}

// Importing reports whether apply adopts the object rather than making it.
func (c *Change) Importing() bool { return c.ImportID != "" }

// Moved reports whether a moved block moved the object to Addr.
func (c *Change) Moved() bool { return c.PrevAddr.Kind != "" }

// Kind is the object's kind.
func (c *Change) Kind() addrs.Kind { return c.Addr.Kind }

// SensitiveAttributes is AfterSensitive in the state's form
// (state.Object.SensitiveAttributes), for apply to record with the
// object it makes or updates; nil when none.
func (c *Change) SensitiveAttributes() [][]string {
	if len(c.AfterSensitive) == 0 {
		return nil
	}
	return pathsToStrings(c.AfterSensitive)
}

// priorSensitive is the BeforeSensitive of an object: the paths the state
// records, with those the configuration's instance (nil: none) has.
func priorSensitive(o *state.Object, inst *config.Instance) []cty.Path {
	paths := stringsToPaths(o.SensitiveAttributes)
	if inst == nil || len(inst.Sensitive) == 0 {
		return paths
	}
	if paths == nil {
		return inst.Sensitive
	}
	for _, p := range inst.Sensitive {
		if !slices.ContainsFunc(paths, p.Equals) {
			paths = append(paths, p)
		}
	}
	return paths
}
