package config

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// A variable whose validation fails is reported once, with its value, and
// nothing that depends on it is: as in Terraform, whose graph walk skips
// what depends on a failed variable, an index into a map by an invalid
// key is the validation's error, not three "Invalid index" errors more.
// Three steps do it: the nodes that refer to the variable are evaluated
// after its validations (validationWaits); a failed validation makes the
// variable unknown for them (invalidate); and the errors of expressions
// that still read it, directly or through local values, blocks and
// agents, are dropped (taintedNodes, withoutTainted). The same holds for
// a variable without a value or with one of the wrong type.

// validationWaits gives, for each node, the validation nodes it must be
// evaluated after: those of the variables it refers to, unless the
// validation itself needs the node (a local value it reads), which
// would be a cycle.
func (e *evaluator) validationWaits() map[string][]string {
	waits := map[string][]string{}
	for name, v := range e.decl.variables {
		if len(v.validations) == 0 {
			continue
		}
		vkey := "validation." + name
		needed := e.graph.reach(vkey)
		for key, refs := range e.refs {
			if key == vkey || needed[key] {
				continue
			}
			for _, r := range refs {
				if r.kind == refVar && r.name == name {
					waits[key] = append(waits[key], vkey)
					break
				}
			}
		}
	}
	return waits
}

// relevel raises the levels of nodes (keys, in dependency order) so that
// each comes after what it waits for and, in turn, what depends on it
// comes after it. validationWaits makes no cycle, so this ends; the
// bound is a guard.
func (e *evaluator) relevel(keys []string, level map[string]int, waits map[string][]string) {
	if len(waits) == 0 {
		return
	}
	for range len(keys) + 1 {
		changed := false
		for _, k := range keys {
			lv := level[k]
			for _, d := range e.graph.nodes[k].deps {
				if l, ok := level[d]; ok {
					lv = max(lv, l+1)
				}
			}
			for _, w := range waits[k] {
				if l, ok := level[w]; ok {
					lv = max(lv, l+1)
				}
			}
			if lv != level[k] {
				level[k], changed = lv, true
			}
		}
		if !changed {
			return
		}
	}
}

// invalidate makes a variable whose validation failed unknown for what is
// evaluated after it, so that indexing or converting its value reports
// nothing more. Contexts already built hold its old value: they are
// dropped.
func (e *evaluator) invalidate(v *Variable) {
	e.mu.Lock()
	v.errored = true
	v.Value = cty.UnknownVal(v.Type)
	e.mu.Unlock()
	e.ctxMu.Lock()
	e.ctxs = nil
	e.ctxMu.Unlock()
}

// taintedNodes are the nodes that depend, directly or through others, on
// a variable whose value is missing or invalid (reported already),
// besides validations, which report the variable itself.
func (e *evaluator) taintedNodes() map[string]bool {
	if !e.anyErrored() {
		return nil
	}
	dependents := map[string][]string{}
	for k, n := range e.graph.nodes {
		for _, d := range n.deps {
			dependents[d] = append(dependents[d], k)
		}
	}
	tainted := map[string]bool{}
	var mark func(k string)
	mark = func(k string) {
		for _, dep := range dependents[k] {
			if kind, _, _ := cutDot(dep); kind == "validation" || tainted[dep] {
				continue
			}
			tainted[dep] = true
			mark(dep)
		}
	}
	for name, v := range e.decl.variables {
		if v.errored {
			mark("var." + name)
		}
	}
	return tainted
}

// usesTainted reports whether expr refers to an errored variable or to
// a tainted local value, block or agent.
func (e *evaluator) usesTainted(expr hcl.Expression, tainted map[string]bool) bool {
	if expr == nil {
		return false
	}
	for _, tr := range expr.Variables() {
		if len(tr) < 2 {
			continue
		}
		a, ok := tr[1].(hcl.TraverseAttr)
		if !ok {
			continue
		}
		if tr.RootName() == "var" {
			if v := e.decl.variables[a.Name]; v != nil && v.errored {
				return true
			}
		} else if tainted[tr.RootName()+"."+a.Name] {
			return true // a local value, a block or an agent
		}
	}
	return false
}

// withoutTainted drops the errors whose expression refers to an errored
// variable or to what depends on one. Other errors of the same block
// stay: a port out of range is reported whatever its address.
func (e *evaluator) withoutTainted(diags hcl.Diagnostics, tainted map[string]bool) hcl.Diagnostics {
	if !e.anyErrored() {
		return diags
	}
	// The validations' own errors read the variable: they stay.
	var validations []hcl.Range
	for _, v := range e.decl.variables {
		for _, val := range v.validations {
			validations = append(validations, val.Condition.Range(), val.ErrorMessage.Range())
		}
	}
	within := func(d *hcl.Diagnostic) bool {
		for _, r := range validations {
			if d.Subject != nil && r.Filename == d.Subject.Filename && r.ContainsOffset(d.Subject.Start.Byte) {
				return true
			}
		}
		return false
	}
	out := diags[:0:0]
	for _, d := range diags {
		if d.Severity == hcl.DiagError && e.usesTainted(d.Expression, tainted) && !within(d) {
			continue
		}
		out = append(out, d)
	}
	return out
}

// reach is the set of nodes key needs, directly or through others.
func (g *graph) reach(key string) map[string]bool {
	seen := map[string]bool{}
	var walk func(k string)
	walk = func(k string) {
		n := g.nodes[k]
		if n == nil {
			return
		}
		for _, d := range n.deps {
			if !seen[d] {
				seen[d] = true
				walk(d)
			}
		}
	}
	walk(key)
	return seen
}

// anyErrored reports whether a variable's value is missing or invalid.
func (e *evaluator) anyErrored() bool {
	for _, v := range e.decl.variables {
		if v.errored {
			return true
		}
	}
	return false
}
