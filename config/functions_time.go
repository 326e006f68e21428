package config

import (
	"fmt"
	"time"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// planTimestampFunc is Terraform's plantimestamp(): the time of the plan,
// RFC 3339 in UTC, the same for every call of one plan and known in it
// (apply of a saved plan gets the plan's time). Without a plan time (a
// template, a JSON view of an expression) it is unknown, as Terraform's
// is where it plans nothing.
func planTimestampFunc(at time.Time) function.Function {
	return function.New(&function.Spec{
		Description: "Returns a UTC timestamp string in RFC 3339 format, fixed during a single plan.",
		Type:        function.StaticReturnType(cty.String),
		RefineResult: func(b *cty.RefinementBuilder) *cty.RefinementBuilder {
			return b.NotNull()
		},
		Impl: func([]cty.Value, cty.Type) (cty.Value, error) {
			if at.IsZero() {
				return cty.UnknownVal(cty.String), nil
			}
			return cty.StringVal(at.UTC().Format(time.RFC3339)), nil
		},
	})
}

// absentFunctions are Terraform's functions rdmaform leaves out on
// purpose, each with why and what to use instead (hcl ends the message
// with a period). They are in the table only to say so where they are
// called (file:line:col); Offered skips them.
var absentFunctions = map[string]string{
	// A Terraform timestamp() is unknown in the plan and new at every
	// apply: an attribute using it would differ at every plan, and
	// changing a listener's or endpoint's attribute replaces it, which
	// cuts its live RDMA connections.
	"timestamp": "rdmaform has no timestamp() on purpose: its value would be new at every apply, so every plan would change (replace) the objects using it and cut their live connections. Use plantimestamp(), the time of the plan, which the plan shows",
	"uuid":      "rdmaform has no uuid() on purpose: its value would be new at every apply, so every plan would change (replace) the objects using it and cut their live connections. Use uuidv5(namespace, name) for a UUID that stays the same for the same name",
	"type":      "the type function is only available in rdmaform console, to show a value's type; a configuration cannot call it",
}

// absentFunc is a function that refuses every call with why it is absent.
func absentFunc(why string) function.Function {
	return function.New(&function.Spec{
		VarParam: &function.Parameter{Name: "args", Type: cty.DynamicPseudoType, AllowNull: true, AllowUnknown: true, AllowDynamicType: true, AllowMarked: true},
		Type:     function.StaticReturnType(cty.DynamicPseudoType),
		Impl: func([]cty.Value, cty.Type) (cty.Value, error) {
			return cty.DynamicVal, fmt.Errorf("%s", why)
		},
	})
}
