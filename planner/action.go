package planner

// Action is what apply does to one object.
type Action rune

const (
	NoOp             Action = 0
	Create           Action = '+'
	Update           Action = '~'
	DeleteThenCreate Action = '∓'
	CreateThenDelete Action = '±'
	Delete           Action = '-'
)

// String names the action as plan's JSON form does.
func (a Action) String() string {
	switch a {
	case NoOp:
		return "no-op"
	case Create:
		return "create"
	case Update:
		return "update"
	case DeleteThenCreate:
		return "delete-then-create"
	case CreateThenDelete:
		return "create-then-delete"
	case Delete:
		return "delete"
	}
	return "Action(" + string(a) + ")"
}

// IsReplace reports whether a destroys an object and creates its
// replacement, in either order.
func (a Action) IsReplace() bool { return a == DeleteThenCreate || a == CreateThenDelete }

// Creates reports whether a creates an object (create or replace).
func (a Action) Creates() bool { return a == Create || a.IsReplace() }

// Deletes reports whether a deletes an object (delete or replace).
func (a Action) Deletes() bool { return a == Delete || a.IsReplace() }

// Symbol is the action's marker in the human plan: "+", "~", "-/+", "+/-",
// "-", or "" for no-op.
func (a Action) Symbol() string {
	switch a {
	case Create:
		return "+"
	case Update:
		return "~"
	case DeleteThenCreate:
		return "-/+"
	case CreateThenDelete:
		return "+/-"
	case Delete:
		return "-"
	}
	return ""
}

// ParseAction is the inverse of String, for saved plans.
func ParseAction(s string) (Action, bool) {
	for _, a := range []Action{NoOp, Create, Update, DeleteThenCreate, CreateThenDelete, Delete} {
		if a.String() == s {
			return a, true
		}
	}
	return NoOp, false
}
