package config

import (
	"fmt"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/rdmaform/rdmaform/config/addrs"
)

// refKind is what a reference's root names.
type refKind int

const (
	refVar refKind = iota
	refLocal
	refResource
	refCount
	refEach
	refRdmaform // rdmaform.workspace
	refPath     // path.module, path.root, path.cwd
	refAgent    // agent.compute, agent.storage["s1"].address
	refInvalid  // reported already; evaluates to an unknown value
)

// reference is one traversal of an expression, typed: var.x, local.x,
// listener.x[0].port, count.index, each.key.
type reference struct {
	kind refKind
	root string         // the traversal's first name, as written
	name string         // var and local: the name
	res  addrs.Resource // refResource
	rng  hcl.Range
	node string // see key
}

// key names the graph node a reference depends on ("" for none).
func (r *reference) key() string {
	if r.node != "" {
		return r.node
	}
	switch r.kind {
	case refVar:
		return "var." + r.name
	case refLocal:
		return "local." + r.name
	case refResource:
		return r.res.String()
	case refAgent:
		return agentKind + "." + r.name
	}
	return ""
}

var rootNames = []string{"var", "local", "count", "each", "rdmaform", "path", string(addrs.ProtectionDomain), string(addrs.Listener), string(addrs.Endpoint), agentKind}

// parseRef types a traversal and checks it against the declarations.
// expand says which of count/each the enclosing block offers ("" none).
func (d *declarations) parseRef(tr hcl.Traversal, expand string) (*reference, hcl.Diagnostics) {
	root := tr.RootName()
	ref := &reference{kind: refInvalid, root: root, rng: tr.SourceRange()}
	bad := func(summary, detail string, rng hcl.Range) (*reference, hcl.Diagnostics) {
		return ref, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: rng.Ptr()}}
	}
	attrAt := func(i int) (string, hcl.Range, bool) {
		if len(tr) <= i {
			return "", hcl.Range{}, false
		}
		if a, ok := tr[i].(hcl.TraverseAttr); ok {
			return a.Name, a.SrcRange, true
		}
		return "", tr[i].SourceRange(), false
	}
	switch root {
	case "var", "local":
		name, rng, ok := attrAt(1)
		ref.name = name
		if !ok {
			return bad("Invalid reference", fmt.Sprintf("A reference to a %s value needs a name after it, such as %s.name.", root, root), tr.SourceRange())
		}
		if root == "var" {
			if _, declared := d.variables[name]; !declared {
				return bad("Reference to undeclared input variable",
					fmt.Sprintf("An input variable named %q is not declared.%s", name, DidYouMean(name, mapKeys(d.variables))), hcl.RangeOver(tr[0].SourceRange(), rng))
			}
			ref.kind = refVar
		} else {
			if _, declared := d.locals[name]; !declared {
				return bad("Reference to undeclared local value",
					fmt.Sprintf("A local value named %q is not declared.%s", name, DidYouMean(name, mapKeys(d.locals))), hcl.RangeOver(tr[0].SourceRange(), rng))
			}
			ref.kind = refLocal
		}
		ref.name = name
		return ref, nil
	case "rdmaform", "terraform":
		name, rng, ok := attrAt(1)
		if !ok || name != "workspace" {
			if !ok {
				rng = tr[len(tr)-1].SourceRange()
			}
			return bad("Invalid reference", root+" has only rdmaform.workspace, the selected workspace's name.", hcl.RangeOver(tr[0].SourceRange(), rng))
		}
		if root == "terraform" {
			return bad("Reference to unknown name", "rdmaform's name for Terraform's terraform.workspace is rdmaform.workspace.", hcl.RangeOver(tr[0].SourceRange(), rng))
		}
		ref.kind = refRdmaform
		return ref, nil
	case "path":
		name, rng, ok := attrAt(1)
		if !ok || !contains(pathNames, name) {
			if !ok {
				rng = tr[len(tr)-1].SourceRange()
			}
			return bad("Invalid reference", "path has only path.module and path.root (the configuration's directory, \".\" as paths are relative to it) and path.cwd (the directory rdmaform was started in, before -chdir).", hcl.RangeOver(tr[0].SourceRange(), rng))
		}
		ref.kind = refPath
		return ref, nil
	case "count", "each":
		if expand != root {
			what := "count"
			if root == "each" {
				what = "for_each"
			}
			return bad(fmt.Sprintf("Reference to %q in a block without %s", root, what),
				fmt.Sprintf("%s.* is available only in a protection_domain, listener or endpoint block that sets %s.", root, what), tr.SourceRange())
		}
		name, rng, ok := attrAt(1)
		allowed, text := []string{"index"}, "count has only count.index."
		if root == "each" {
			allowed, text = []string{"key", "value"}, "each has only each.key and each.value."
		}
		if !ok || !contains(allowed, name) {
			if !ok {
				rng = tr[len(tr)-1].SourceRange()
			}
			return bad("Invalid reference", text, hcl.RangeOver(tr[0].SourceRange(), rng))
		}
		ref.kind = refCount
		if root == "each" {
			ref.kind = refEach
		}
		return ref, nil
	case string(addrs.ProtectionDomain), string(addrs.Listener), string(addrs.Endpoint):
		name, rng, ok := attrAt(1)
		if !ok {
			article := "a"
			if root == string(addrs.Endpoint) {
				article = "an"
			}
			return bad("Invalid reference", fmt.Sprintf("A reference to %s %s needs its name, such as %s.name.", article, root, root), tr.SourceRange())
		}
		ref.name = name
		res := addrs.Resource{Kind: addrs.Kind(root), Name: name}
		r, declared := d.resources[res]
		if !declared {
			var names []string
			for a := range d.resources {
				if a.Kind == res.Kind {
					names = append(names, a.Name)
				}
			}
			return bad("Reference to undeclared "+root,
				fmt.Sprintf("%s named %q is not declared in this configuration.%s", capitalize(withArticle(root)), name, DidYouMean(name, names)), hcl.RangeOver(tr[0].SourceRange(), rng))
		}
		// The attribute follows the name, or an index when the block is
		// expanded.
		i := 2
		if len(tr) > i {
			if _, isIndex := tr[i].(hcl.TraverseIndex); isIndex {
				i++
			}
		}
		if attr, arng, ok := attrAt(i); ok {
			schema := schemas[res.Kind]
			unknownAttr := schema.Attribute(attr) == nil && schema.NestedBlock(attr) == nil
			if unknownAttr && r.ForEach != nil && i == 2 {
				// listener.m.x.port: the key written as an attribute.
				example := fmt.Sprintf("%s.%s[%q]", root, name, attr)
				if next, _, ok := attrAt(3); ok {
					example += "." + next
				}
				return bad("Missing instance key",
					fmt.Sprintf("%s.%s has for_each, so its attributes belong to its instances, chosen by key: write %s.", root, name, example), tr.SourceRange())
			}
			if unknownAttr {
				return bad("Unsupported attribute",
					fmt.Sprintf("%s has no attribute named %q.%s", capitalize(withArticle(root)), attr, DidYouMean(attr, schema.names())), arng)
			}
			// Into a nested block: its attribute is checked too
			// (listener.l.accept.private_data).
			if nb := schema.NestedBlock(attr); nb != nil {
				if sub, srng, ok := attrAt(i + 1); ok && nb.Block.Attribute(sub) == nil && nb.Block.NestedBlock(sub) == nil {
					return bad("Unsupported attribute",
						fmt.Sprintf("The %s block of %s has no attribute named %q.%s", attr, withArticle(root), sub, DidYouMean(sub, nb.Block.names())), srng)
				}
			}
			if (r.Count != nil || r.ForEach != nil) && i == 2 {
				example := "[0]"
				if r.ForEach != nil {
					example = `["key"]`
				}
				return bad("Missing instance key",
					fmt.Sprintf("%s.%s has %s, so its attributes belong to its instances: write %s.%s%s.%s.", root, name,
						map[bool]string{true: "count", false: "for_each"}[r.Count != nil], root, name, example, attr), tr.SourceRange())
			}
			if r.Count == nil && r.ForEach == nil && i == 3 {
				return bad("Unexpected index", fmt.Sprintf("%s.%s has neither count nor for_each, so it is not indexed.", root, name), tr[2].SourceRange())
			}
		}
		ref.kind, ref.res, ref.node = refResource, res, r.key
		return ref, nil
	case agentKind:
		return d.parseAgentRef(tr, ref, bad, attrAt)
	}
	return bad("Reference to unknown name",
		fmt.Sprintf("There is nothing named %q; references start with var., local., protection_domain., listener., endpoint., agent., count., each., rdmaform. or path.%s", root, DidYouMean(root, rootNames)), tr[0].SourceRange())
}

// collectRefs types every reference in exprs and in extra.
func (d *declarations) collectRefs(exprs []hcl.Expression, expand string, extra ...hcl.Traversal) ([]*reference, hcl.Diagnostics) {
	var trs []hcl.Traversal
	for _, e := range exprs {
		if e != nil {
			trs = append(trs, exprVariables(e)...)
		}
	}
	trs = append(trs, extra...)
	refs := make([]*reference, 0, len(trs))
	var diags hcl.Diagnostics
	for _, tr := range trs {
		r, rd := d.parseRef(tr, expand)
		diags = append(diags, rd...)
		refs = append(refs, r)
	}
	return refs, diags
}

func mapKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// exprVariables is expr.Variables() without walking the common simple
// expressions: a literal, a single reference, a string without
// interpolations. It returns the same traversals.
func exprVariables(expr hcl.Expression) []hcl.Traversal {
	switch e := expr.(type) {
	case *hclsyntax.LiteralValueExpr:
		return nil
	case *hclsyntax.ScopeTraversalExpr:
		return []hcl.Traversal{e.Traversal}
	case *hclsyntax.TemplateExpr:
		for _, p := range e.Parts {
			if _, ok := p.(*hclsyntax.LiteralValueExpr); !ok {
				return expr.Variables()
			}
		}
		return nil
	}
	return expr.Variables()
}

// parseAgentRef types a reference to an agent block in an expression:
// agent.compute.address, agent.storage["s1"].tls.ca_file.
func (d *declarations) parseAgentRef(tr hcl.Traversal, ref *reference,
	bad func(summary, detail string, rng hcl.Range) (*reference, hcl.Diagnostics),
	attrAt func(i int) (string, hcl.Range, bool)) (*reference, hcl.Diagnostics) {
	name, rng, ok := attrAt(1)
	if !ok {
		return bad("Invalid reference", "A reference to an agent needs its name, such as agent.name.", tr.SourceRange())
	}
	ref.name = name
	a, declared := d.agents[name]
	if !declared {
		return bad("Reference to undeclared agent",
			fmt.Sprintf("An agent named %q is not declared in this configuration.%s", name, DidYouMean(name, mapKeys(d.agents))), hcl.RangeOver(tr[0].SourceRange(), rng))
	}
	i := 2
	if len(tr) > i && isIndex(tr[i]) {
		if !a.expanded() {
			return bad("Unexpected index", fmt.Sprintf("agent.%s has neither count nor for_each, so it is not indexed.", name), tr[i].SourceRange())
		}
		i++
	}
	if attr, arng, ok := attrAt(i); ok {
		if agentBlockSchema.Attribute(attr) == nil && agentBlockSchema.NestedBlock(attr) == nil {
			return bad("Unsupported attribute",
				fmt.Sprintf("An agent has no attribute named %q.%s", attr, DidYouMean(attr, agentBlockSchema.names())), arng)
		}
		if a.expanded() && i == 2 {
			return bad("Missing instance key",
				fmt.Sprintf("agent.%s has count or for_each, so its attributes belong to its instances: write agent.%s[KEY].%s.", name, name, attr), tr.SourceRange())
		}
	}
	ref.kind = refAgent
	return ref, nil
}
