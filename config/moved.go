package config

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
)

// Moved is a moved block, as Terraform's: the object the state records at
// From is now the configuration's To, so the plan relabels it instead of
// destroying it and creating To (which would drop its connections). With
// Whole, From and To name blocks (endpoint.client) and every instance
// moves, keeping its key; else each names one instance.
type Moved struct {
	From, To  addrs.Instance
	Whole     bool
	DeclRange hcl.Range
}

// Target is where a moves an object at addr, and whether it applies.
func (m *Moved) Target(addr addrs.Instance) (addrs.Instance, bool) {
	if m.Whole {
		if addr.Resource != m.From.Resource {
			return addr, false
		}
		return addrs.Instance{Resource: m.To.Resource, Key: addr.Key}, true
	}
	if addr != m.From {
		return addr, false
	}
	return m.To, true
}

var movedSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "from", Required: true}, {Name: "to", Required: true}}}

func decodeMoved(b *hcl.Block) (*Moved, hcl.Diagnostics) {
	content, diags := b.Body.Content(movedSchema)
	if diags.HasErrors() {
		return nil, diags
	}
	m := &Moved{DeclRange: b.DefRange}
	from, fromWhole, d := movedAddress(content.Attributes["from"])
	diags = append(diags, d...)
	to, toWhole, d := movedAddress(content.Attributes["to"])
	diags = append(diags, d...)
	if diags.HasErrors() {
		return nil, diags
	}
	bad := func(detail string) (*Moved, hcl.Diagnostics) {
		return nil, append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid \"moved\" addresses",
			Detail: detail, Subject: hcl.RangeBetween(content.Attributes["from"].Range, content.Attributes["to"].Range).Ptr()})
	}
	switch {
	case from.Kind != to.Kind:
		return bad(fmt.Sprintf("%s cannot move to %s: an object keeps its kind.", capitalize(withArticle(string(from.Kind))), withArticle(string(to.Kind))))
	case from == to:
		return bad(fmt.Sprintf("%s moves to itself.", from))
	}
	// A block moved to one instance, or one instance to a block, is the
	// block's single object (endpoint.client, without count) moving, as
	// Terraform reads "from = aws_instance.a  to = aws_instance.a[0]".
	m.From, m.To, m.Whole = from, to, fromWhole && toWhole
	return m, diags
}

// movedAddress reads a moved block's from or to: a static reference to a
// block, or to one instance of it. whole is true for a block.
func movedAddress(a *hcl.Attribute) (addr addrs.Instance, whole bool, diags hcl.Diagnostics) {
	invalid := func(detail string) (addrs.Instance, bool, hcl.Diagnostics) {
		return addrs.Instance{}, false, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid address",
			Detail: detail, Subject: a.Expr.Range().Ptr()}}
	}
	tr, d := hcl.AbsTraversalForExpr(a.Expr)
	if d.HasErrors() {
		return invalid(fmt.Sprintf("%s must be an address such as endpoint.client or endpoint.client[0], written without quotes.", a.Name))
	}
	kind := addrs.Kind(tr.RootName())
	if schemas[kind] == nil || len(tr) < 2 || len(tr) > 3 {
		return invalid(fmt.Sprintf("%s must be the address of a protection_domain, listener or endpoint, such as endpoint.client or endpoint.client[0].", a.Name))
	}
	name, ok := tr[1].(hcl.TraverseAttr)
	if !ok {
		return invalid(fmt.Sprintf("%s must name a block after its kind, such as endpoint.client.", a.Name))
	}
	addr = addrs.Instance{Resource: addrs.Resource{Kind: kind, Name: name.Name}}
	if len(tr) == 2 {
		return addr, true, nil
	}
	idx, ok := tr[2].(hcl.TraverseIndex)
	if !ok {
		return invalid(fmt.Sprintf("%s may end with an index only, such as [0] or [\"a\"].", a.Name))
	}
	key, ok := keyOf(idx.Key)
	if !ok {
		return invalid(fmt.Sprintf("%s: an index is a whole number or a string.", a.Name))
	}
	addr.Key = key
	return addr, false, nil
}

// keyOf is the instance key an index value names: a string, or a
// whole number from 0.
func keyOf(k cty.Value) (addrs.Key, bool) {
	switch {
	case !k.IsKnown() || k.IsNull():
	case k.Type() == cty.String:
		return addrs.StringKey(k.AsString()), true
	case k.Type() == cty.Number && k.AsBigFloat().IsInt() && k.AsBigFloat().Sign() >= 0:
		n, _ := k.AsBigFloat().Int64()
		return addrs.IntKey(int(n)), true
	}
	return nil, false
}

// checkMoved reports moved blocks whose from is still in the
// configuration (the object could be at only one of the two places), as
// Terraform does.
func checkMoved(cfg *Config) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, m := range cfg.Moved {
		var still bool
		var where hcl.Range
		if r := cfg.Resources[m.From.Resource]; r != nil {
			if m.Whole {
				still, where = true, r.DeclRange
			} else if _, ok := cfg.Instances[m.From]; ok {
				still, where = true, r.DeclRange
			}
		}
		if still {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Moved object still exists",
				Detail: fmt.Sprintf("This statement declares a move from %s, but that object is still declared at %s.\n\n"+
					"Change your configuration so that %s is declared as %s instead.", fromString(m), where, fromString(m), toString(m)),
				Subject: m.DeclRange.Ptr()})
		}
	}
	return append(diags, checkMovedGraph(cfg.Moved)...)
}

// checkMovedGraph refuses, as Terraform does, two moves of one object to
// different places, two objects moved to one place, and moves that come
// back to where they started (a chain a to b, b to c is fine).
func checkMovedGraph(moves []*Moved) hcl.Diagnostics {
	var diags hcl.Diagnostics
	byFrom, byTo := map[string]*Moved{}, map[string]*Moved{}
	next := map[string]string{}
	for _, m := range moves {
		from, to := fromString(m), toString(m)
		if prev := byFrom[from]; prev != nil && toString(prev) != to {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Ambiguous move statements",
				Detail: fmt.Sprintf("A statement at %s declared that %s moved to %s, but this statement instead declares that it moved to %s.\n\n"+
					"Each object can move to only one destination.", prev.DeclRange, from, toString(prev), to),
				Subject: m.DeclRange.Ptr()})
			continue
		}
		if prev := byTo[to]; prev != nil && fromString(prev) != from {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Ambiguous move statements",
				Detail: fmt.Sprintf("A statement at %s declared that %s moved to %s, but this statement instead declares that %s moved there.\n\n"+
					"Each object can have moved from only one source.", prev.DeclRange, fromString(prev), to, from),
				Subject: m.DeclRange.Ptr()})
			continue
		}
		byFrom[from], byTo[to], next[from] = m, m, to
	}
	reported := map[string]bool{}
	for _, m := range moves {
		start := fromString(m)
		seen := map[string]bool{start: true}
		path := []string{start}
		for at, ok := next[start]; ok && !reported[start]; at, ok = next[at] {
			path = append(path, at)
			if at == start {
				for _, p := range path {
					reported[p] = true
				}
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cyclic dependency in move statements",
					Detail:  fmt.Sprintf("The move statements form a cycle: %s. An object can move only to where nothing moves it away from.", strings.Join(path, " to ")),
					Subject: m.DeclRange.Ptr()})
				break
			}
			if seen[at] {
				break // a cycle that does not pass through start: reported from its own members
			}
			seen[at] = true
		}
	}
	return diags
}

func fromString(m *Moved) string {
	if m.Whole {
		return m.From.Resource.String()
	}
	return m.From.String()
}

func toString(m *Moved) string {
	if m.Whole {
		return m.To.Resource.String()
	}
	return m.To.String()
}
