package planner

import (
	"sort"
	"time"

	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/state"
	"github.com/zclconf/go-cty/cty"
)

// Plan is the set of changes apply will make, and what it was made from.
type Plan struct {
	// Changes has one entry per object in the configuration or the state
	// (within -target), no-ops included, in addrs.Instance.Less order.
	Changes []*Change
	// Drift lists objects the state records but the agent no longer
	// holds, found by the refresh. Those still configured are re-created
	// (their Change says ReasonGone); the others are dropped from the
	// state by apply. It also lists the objects the agent holds with
	// other facts (After set), which apply records as refreshed.
	Drift []Drift
	// OutputChanges are the root outputs the plan leaves, with their
	// changes: no-ops included, as Terraform's plan JSON lists them
	// (ChangedOutputs are the others).
	OutputChanges []OutputChange
	// Moves are the objects moved blocks relabel, sorted by new address:
	// apply records them at their new addresses first. Changes already
	// name them by their new addresses (and Change.PrevAddr the old).
	Moves []Move
	// Forgets are the objects removed blocks say to forget: apply drops
	// them from the state and leaves them to the agent.
	Forgets []Forget
	// Deposed are objects a create_before_destroy replacement replaced
	// but did not destroy (the apply stopped in between): apply destroys
	// them first.
	Deposed []Deposed

	// Variables are the root variables' values the plan was made with,
	// sorted by name, for plan -json's "variables" (Terraform's).
	Variables []Variable

	Destroy bool
	// RefreshOnly: the plan only records the drift in the state.
	RefreshOnly bool
	Refreshed   bool             // the live fabric was read (not -refresh=false)
	Targets     []addrs.Instance // -target; a key-less address names a whole block
	Replace     []addrs.Instance // -replace

	// Prior identifies the state the plan was made from: apply of a saved
	// plan refuses to run if the state has changed since.
	Prior StateID
	// Created is when the plan was made (UTC; zero for a plan file saved
	// before plans recorded it), plan JSON's timestamp.
	Created time.Time
}

// Variable is one root variable's value in a plan.
type Variable struct {
	Name  string
	Value cty.Value
}

// StateID identifies one version of a state.
type StateID struct {
	Exists  bool
	Lineage string
	Serial  uint64
}

// Forget is an object a removed block (lifecycle { destroy = false })
// takes out of rdmaform's hands without destroying it.
type Forget struct {
	Addr   addrs.Instance
	Handle string // the agent's name for it, which keeps holding it
}

// Drift is an object the agent no longer holds (deleted) or holds with
// other facts (changed: an endpoint that reconnected on a new QP).
type Drift struct {
	Addr   addrs.Instance
	Before cty.Value
	// After is the object as refreshed, when the agent still holds it;
	// cty.NilVal when it is deleted.
	After cty.Value
	// Facts are the refreshed facts, with After.
	Facts state.Facts
	// BeforeSensitive lists Before's sensitive attributes, as the state
	// records them.
	BeforeSensitive []cty.Path
	// Status is what the agent said instead, if it holds another object
	// at the address (another create token); "" when it holds nothing.
	// For a changed object, its live status.
	Status string
	// Pending: the state recorded the object as asked of the agent by an
	// apply that did not record the outcome (it was killed), and the
	// agent does not hold it.
	Pending bool
}

// Deleted reports whether the agent no longer holds the object.
func (d Drift) Deleted() bool { return d.After == cty.NilVal }

// Deposed is an object replaced by a create_before_destroy replacement
// and not yet destroyed: the state records it with its replacement.
type Deposed struct {
	Addr   addrs.Instance
	Handle string // the agent's name for it
	Token  string // its create token
	// Pending: not a replaced object but one an interrupted apply asked
	// the agent for, which the configuration no longer declares or the
	// agent reports failed.
	Pending bool
	// Failed is the agent's status and error for a Pending object it
	// reports failed ("error: rdma_connect: ETIMEDOUT"); "" otherwise.
	Failed string
	// Agent is the key of the agent holding it ("" for the local one).
	Agent string
}

// DeposedKey is how plans and progress lines name a deposed object, as
// Terraform's deposed keys: the first eight characters of its create
// token.
func DeposedKey(token string) string {
	if len(token) > 8 {
		return token[:8]
	}
	if token == "" {
		return "00000000"
	}
	return token
}

// OutputChange is a root output and its change.
type OutputChange struct {
	Name          string
	Action        Action // Create, Update, Delete or NoOp
	Before, After cty.Value
	Sensitive     bool
}

// Counts returns Plan's summary: objects to add, change and destroy (a
// replacement counts as one add and one destroy, as in Terraform; an
// import, none: see Imports).
func (p *Plan) Counts() (add, change, destroy int) {
	for _, c := range p.Changes {
		switch {
		case c.Importing():
		case c.Action == Create:
			add++
		case c.Action == Update:
			change++
		case c.Action == Delete:
			destroy++
		case c.Action.IsReplace():
			add++
			destroy++
		}
	}
	destroy += len(p.Deposed)
	return
}

// Imports counts the objects the plan imports.
func (p *Plan) Imports() int {
	n := 0
	for _, c := range p.Changes {
		if c.Importing() {
			n++
		}
	}
	return n
}

// HasChanges reports whether applying the plan would change anything:
// an object, an output, or the state (objects deleted outside rdmaform;
// in a refresh-only plan, also objects whose facts changed). As in
// Terraform, facts that changed live are no change of a normal plan,
// whose apply records them all the same (see RefreshesFacts).
func (p *Plan) HasChanges() bool {
	for _, c := range p.Changes {
		if c.Action != NoOp {
			return true
		}
	}
	for _, d := range p.Drift {
		if d.Deleted() || p.RefreshOnly {
			return true
		}
	}
	return len(p.ChangedOutputs()) > 0 || len(p.Deposed) > 0 || len(p.Moves) > 0 || len(p.Forgets) > 0
}

// Timestamp is when the plan was made, in RFC 3339 (UTC); "" when its
// plan file does not say.
func (p *Plan) Timestamp() string {
	if p.Created.IsZero() {
		return ""
	}
	return p.Created.UTC().Format(time.RFC3339)
}

// ChangedOutputs are the output changes that are not no-ops: those a
// plan shows and apply records.
func (p *Plan) ChangedOutputs() []OutputChange {
	var out []OutputChange
	for _, oc := range p.OutputChanges {
		if oc.Action != NoOp {
			out = append(out, oc)
		}
	}
	return out
}

// RefreshesFacts reports whether the refresh found objects whose facts
// changed live (endpoints that reconnected), which apply records.
func (p *Plan) RefreshesFacts() bool {
	for _, d := range p.Drift {
		if !d.Deleted() {
			return true
		}
	}
	return false
}

// Change returns the change of addr, or nil.
func (p *Plan) Change(addr addrs.Instance) *Change {
	i := sort.Search(len(p.Changes), func(i int) bool { return !p.Changes[i].Addr.Less(addr) })
	if i < len(p.Changes) && p.Changes[i].Addr == addr {
		return p.Changes[i]
	}
	return nil
}

func (p *Plan) sortChanges() {
	sort.Slice(p.Changes, func(i, j int) bool { return p.Changes[i].Addr.Less(p.Changes[j].Addr) })
}
