package config

import (
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
)

// CheckStatus is a check's outcome, in the words of Terraform's JSON
// output (its "checks" section).
type CheckStatus string

const (
	CheckPass    CheckStatus = "pass"
	CheckFail    CheckStatus = "fail"
	CheckError   CheckStatus = "error"   // the condition could not be evaluated
	CheckUnknown CheckStatus = "unknown" // it uses values known only after apply
)

// CheckKind is what holds the conditions: Terraform's "resource",
// "output_value" or "check".
type CheckKind string

const (
	CheckKindResource CheckKind = "resource"
	CheckKindOutput   CheckKind = "output_value"
	CheckKindCheck    CheckKind = "check"
)

// CheckResult is one checkable object's outcome: a block with
// preconditions or postconditions (per instance), an output with
// preconditions, or a check block.
type CheckResult struct {
	Kind CheckKind
	// Resource is a block's address (Kind resource); Name an output's or
	// check block's name.
	Resource  addrs.Resource
	Name      string
	Status    CheckStatus
	Instances []CheckInstance
}

// CheckInstance is one instance's outcome (the one instance of an output
// or check block has no address): Problems are the error messages of its
// conditions that are false.
type CheckInstance struct {
	Addr     addrs.Instance
	Status   CheckStatus
	Problems []string
}

// CheckResults evaluates every condition of the configuration with the
// values valueOf has of the objects (a plan's planned values, or a
// state's), as Terraform reports them in its JSON output: a
// postcondition's self is the object's value from valueOf, and one not
// made yet, or a condition that uses what is known only after apply, is
// unknown. Blocks come in address order, then outputs by name, then
// check blocks in source order.
func (c *Config) CheckResults(valueOf func(addrs.Instance) (cty.Value, bool)) []CheckResult {
	var out []CheckResult
	byResource := c.instancesByResource()
	rs := make([]addrs.Resource, 0, len(c.Resources))
	for a, r := range c.Resources {
		if len(r.Lifecycle.Preconditions)+len(r.Lifecycle.Postconditions) > 0 && r.body != nil {
			rs = append(rs, a)
		}
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].String() < rs[j].String() })
	for _, a := range rs {
		r := c.Resources[a]
		res := CheckResult{Kind: CheckKindResource, Resource: a}
		for _, inst := range byResource[a] {
			res.Instances = append(res.Instances, c.instanceCheck(inst.Addr, r, valueOf))
		}
		if r.instancesUnknown {
			res.Instances = nil // its instances are not known: neither are their checks
		}
		out = append(out, res.aggregated())
	}
	names := make([]string, 0, len(c.Outputs))
	for n, o := range c.Outputs {
		if len(o.Preconditions) > 0 {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		conds := c.Outputs[n].Preconditions
		one := conditionsCheck(conds, c.contextWith(conditionsTraversals(conds), valueOf))
		out = append(out, CheckResult{Kind: CheckKindOutput, Name: n, Instances: []CheckInstance{one}}.aggregated())
	}
	for _, ch := range c.Checks {
		one := conditionsCheck(ch.Asserts, c.contextWith(conditionsTraversals(ch.Asserts), valueOf))
		out = append(out, CheckResult{Kind: CheckKindCheck, Name: ch.Name, Instances: []CheckInstance{one}}.aggregated())
	}
	return out
}

// instanceCheck is the outcome of one instance's preconditions and
// postconditions.
func (c *Config) instanceCheck(addr addrs.Instance, r *Resource, valueOf func(addrs.Instance) (cty.Value, bool)) CheckInstance {
	ctx, diags := c.instanceContext(addr, r, valueOf)
	if diags.HasErrors() {
		return CheckInstance{Addr: addr, Status: CheckError}
	}
	pre := conditionsCheck(withoutSelf(r.Lifecycle.Preconditions), ctx)
	post := CheckInstance{Status: CheckPass}
	if len(r.Lifecycle.Postconditions) > 0 {
		self, ok := valueOf(addr)
		if !ok || self == cty.NilVal || self.IsNull() {
			post.Status = CheckUnknown // not made yet
		} else {
			sctx := ctx.NewChild()
			sctx.Variables = map[string]cty.Value{"self": self}
			post = conditionsCheck(r.Lifecycle.Postconditions, sctx)
		}
	}
	return CheckInstance{Addr: addr, Status: worse(pre.Status, post.Status), Problems: append(pre.Problems, post.Problems...)}
}

// conditionsCheck evaluates conds in ctx, as plan and apply do
// (checkConditions), one at a time so that each has its status.
func conditionsCheck(conds []*Condition, ctx *hcl.EvalContext) CheckInstance {
	const failed = "failed"
	out := CheckInstance{Status: CheckPass}
	for _, cond := range conds {
		deferred, diags := checkConditions([]*Condition{cond}, ctx, failed)
		status := CheckPass
		switch {
		case len(diags) == 1 && diags[0].Summary == failed:
			status = CheckFail
			out.Problems = append(out.Problems, diags[0].Detail)
		case diags.HasErrors():
			status = CheckError
		case deferred:
			status = CheckUnknown
		}
		out.Status = worse(out.Status, status)
	}
	return out
}

// aggregated is r with its status made of its instances', as Terraform
// aggregates them: an error over a failure over an unknown over a pass;
// a block without known instances is unknown.
func (r CheckResult) aggregated() CheckResult {
	r.Status = CheckPass
	if len(r.Instances) == 0 {
		r.Status = CheckUnknown
	}
	for _, i := range r.Instances {
		r.Status = worse(r.Status, i.Status)
	}
	return r
}

// worse is the graver of two statuses.
func worse(a, b CheckStatus) CheckStatus {
	rank := map[CheckStatus]int{CheckPass: 0, CheckUnknown: 1, CheckFail: 2, CheckError: 3}
	if rank[b] > rank[a] {
		return b
	}
	return a
}
