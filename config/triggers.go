package config

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
)

// Trigger is one entry of lifecycle { replace_triggered_by }, as
// Terraform's: the object is replaced when the plan updates or replaces
// what the entry references (with Attr, when that attribute changes).
type Trigger struct {
	Resource addrs.Resource
	// Index picks one instance, evaluated per instance of the block that
	// declares the trigger (count.index and each.key are allowed); nil
	// means every instance of Resource.
	Index hcl.Expression
	// Attr is the referenced attribute; nil: the object as a whole.
	Attr  cty.Path
	Range hcl.Range
}

// decodeTriggers reads replace_triggered_by: a list of references to
// blocks, instances or their attributes.
func decodeTriggers(a *hcl.Attribute) ([]Trigger, hcl.Diagnostics) {
	exprs, diags := hcl.ExprList(a.Expr)
	var out []Trigger
	for _, e := range exprs {
		t, d := decodeTrigger(e)
		diags = append(diags, d...)
		if !d.HasErrors() {
			out = append(out, t)
		}
	}
	return out, diags
}

func decodeTrigger(e hcl.Expression) (Trigger, hcl.Diagnostics) {
	t := Trigger{Range: e.Range()}
	invalid := func(detail string) (Trigger, hcl.Diagnostics) {
		return t, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid replace_triggered_by expression",
			Detail: detail, Subject: e.Range().Ptr()}}
	}
	const usage = "An entry references a protection_domain, listener or endpoint, one of its instances or one of its attributes: endpoint.a, endpoint.a[0], endpoint.a[count.index].qp_num."
	var head, rest hcl.Traversal
	switch x := e.(type) {
	case *hclsyntax.IndexExpr: // endpoint.a[count.index]
		c, ok := x.Collection.(*hclsyntax.ScopeTraversalExpr)
		if !ok {
			return invalid(usage)
		}
		head, t.Index = c.Traversal, x.Key
	case *hclsyntax.RelativeTraversalExpr: // endpoint.a[each.key].port
		ix, ok := x.Source.(*hclsyntax.IndexExpr)
		if !ok {
			return invalid(usage)
		}
		c, ok := ix.Collection.(*hclsyntax.ScopeTraversalExpr)
		if !ok {
			return invalid(usage)
		}
		head, t.Index, rest = c.Traversal, ix.Key, x.Traversal
	default:
		// A static reference: endpoint.a[0].port in HCL, or the string
		// "endpoint.a[0].port" in a .rdma.json file.
		tr, d := hcl.AbsTraversalForExpr(e)
		if d.HasErrors() {
			return invalid(usage)
		}
		head = tr
	}
	kind := addrs.Kind(head.RootName())
	if schemas[kind] == nil || len(head) < 2 {
		return invalid(usage)
	}
	name, ok := head[1].(hcl.TraverseAttr)
	if !ok {
		return invalid(usage)
	}
	t.Resource = addrs.Resource{Kind: kind, Name: name.Name}
	head = head[2:]
	if idx, ok := first(head).(hcl.TraverseIndex); ok && t.Index == nil {
		t.Index = &hclsyntax.LiteralValueExpr{Val: idx.Key, SrcRange: idx.SrcRange}
		head = head[1:]
	}
	rest = append(append(hcl.Traversal{}, head...), rest...)
	if len(rest) > 0 {
		path, d := schemaPath(schemas[kind], rest)
		if d.HasErrors() {
			return invalid(usage)
		}
		t.Attr = path
	}
	for _, tr := range e.Variables() {
		if root := tr.RootName(); root != "count" && root != "each" && root != string(kind) {
			return invalid(fmt.Sprintf("An entry may use count.index and each.key in its index, nothing else: %s is not allowed here.", root))
		}
	}
	return t, nil
}

func first(tr hcl.Traversal) hcl.Traverser {
	if len(tr) == 0 {
		return nil
	}
	return tr[0]
}

// TriggerTarget is the instance a trigger references for inst, or, with
// every true, all the instances of the trigger's block.
func (t Trigger) TriggerTarget(inst addrs.Instance) (target addrs.Instance, every bool, diags hcl.Diagnostics) {
	if t.Index == nil {
		return addrs.Instance{Resource: t.Resource}, true, nil
	}
	ctx := &hcl.EvalContext{Variables: map[string]cty.Value{}}
	switch k := inst.Key.(type) {
	case addrs.IntKey:
		ctx.Variables["count"] = cty.ObjectVal(map[string]cty.Value{"index": cty.NumberIntVal(int64(k))})
	case addrs.StringKey:
		ctx.Variables["each"] = cty.ObjectVal(map[string]cty.Value{"key": cty.StringVal(string(k))})
	}
	v, diags := t.Index.Value(ctx)
	if diags.HasErrors() {
		return addrs.Instance{}, false, diags
	}
	target = addrs.Instance{Resource: t.Resource}
	switch {
	case v.Type() == cty.String && v.IsKnown() && !v.IsNull():
		target.Key = addrs.StringKey(v.AsString())
	case v.Type() == cty.Number && v.IsKnown() && !v.IsNull() && v.AsBigFloat().IsInt():
		n, _ := v.AsBigFloat().Int64()
		target.Key = addrs.IntKey(int(n))
	default:
		return addrs.Instance{}, false, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid replace_triggered_by index",
			Detail: "The index must be a whole number or a string.", Subject: t.Index.Range().Ptr()}}
	}
	return target, false, nil
}

// checkTriggers reports triggers that reference undeclared blocks or the
// block itself, and dependency cycles they close (a trigger is a
// dependency, as in Terraform: the referenced block is planned first).
func checkTriggers(cfg *Config) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, r := range triggered(cfg) {
		for _, t := range r.Lifecycle.ReplaceTriggeredBy {
			switch {
			case cfg.Resources[t.Resource] == nil:
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Reference to undeclared resource",
					Detail: fmt.Sprintf("replace_triggered_by refers to %s, which is not declared.%s", t.Resource, DidYouMean(t.Resource.String(), resourceNames(cfg, t.Resource.Kind))), Subject: t.Range.Ptr()})
			case t.Resource == r.Addr:
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Self-referential replace_triggered_by",
					Detail: "A block cannot be replaced because of its own changes.", Subject: t.Range.Ptr()})
			}
		}
	}
	return diags
}

func resourceNames(cfg *Config, kind addrs.Kind) []string {
	var out []string
	for a := range cfg.Resources {
		if a.Kind == kind {
			out = append(out, a.String())
		}
	}
	return out
}

// triggered are the blocks with replace_triggered_by, sorted: few, so
// that a configuration of many blocks is not sorted for them.
func triggered(cfg *Config) []*Resource {
	var out []*Resource
	for _, r := range cfg.Resources {
		if len(r.Lifecycle.ReplaceTriggeredBy) > 0 {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Addr.Instance(nil).Less(out[j].Addr.Instance(nil)) })
	return out
}

// triggerCycles reports a cycle of dependencies that goes through a
// replace_triggered_by entry (the others are reported while evaluating).
func triggerCycles(cfg *Config) hcl.Diagnostics {
	const (
		unseen = iota
		visiting
		done
	)
	mark := map[addrs.Resource]int{}
	var cycle []addrs.Resource
	var visit func(r *Resource, path []addrs.Resource) bool
	visit = func(r *Resource, path []addrs.Resource) bool {
		switch mark[r.Addr] {
		case visiting:
			i := slices.Index(path, r.Addr)
			cycle = append(path[i:], r.Addr)
			return true
		case done:
			return false
		}
		mark[r.Addr] = visiting
		for _, d := range r.DependsOn {
			if dr := cfg.Resources[d]; dr != nil && visit(dr, append(path, r.Addr)) {
				return true
			}
		}
		mark[r.Addr] = done
		return false
	}
	for _, r := range triggered(cfg) {
		if !visit(r, nil) {
			continue
		}
		names := make([]string, len(cycle))
		for i, a := range cycle {
			names[i] = a.String()
		}
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cycle: " + strings.Join(names, " -> "),
			Detail:  "replace_triggered_by makes a block depend on what it references, and these blocks then depend on one another.",
			Subject: r.Lifecycle.ReplaceTriggeredBy[0].Range.Ptr()}}
	}
	return nil
}
