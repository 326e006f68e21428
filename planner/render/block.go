package render

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/zclconf/go-cty/cty"
)

// blockWriter renders one object's attributes as Terraform's plan does:
// one line per shown attribute, names aligned, unchanged attributes and
// blocks counted rather than shown in updates and replacements.
type blockWriter struct {
	b       *strings.Builder
	c       colorizer
	replace []cty.Path // paths that force replacement
}

type attrLine struct {
	sym, name, text string
}

// body writes the attributes and nested blocks of an object (or nested
// block) at depth (1 for an object's body), with the whole object's
// action: Create and Delete show every value, Update and the replacements
// only what changes.
func (w *blockWriter) body(schema *config.Block, before, after cty.Value, action planner.Action, path cty.Path, depth int) {
	bv, av := attrMap(before), attrMap(after)
	indent := strings.Repeat("    ", depth)
	var lines []attrLine
	hiddenAttrs := 0
	names := make([]string, 0, len(schema.Attributes))
	for _, a := range schema.Attributes {
		names = append(names, a.Name)
	}
	sort.Strings(names)
	for _, name := range names {
		x, y := get(bv, name), get(av, name)
		apath := append(copyPath(path), cty.GetAttrStep{Name: name})
		switch action {
		case planner.Create:
			if !y.IsNull() {
				lines = append(lines, attrLine{"+", name, value(y, indent+"    ")})
			}
		case planner.Delete:
			if !x.IsNull() && x.IsKnown() {
				lines = append(lines, attrLine{"-", name, value(x, indent+"    ") + " -> null"})
			}
		default:
			switch {
			case x.IsNull() && y.IsNull():
			case x.IsKnown() && y.IsKnown() && x.RawEquals(y):
				if name == "id" && !x.IsNull() {
					lines = append(lines, attrLine{" ", name, value(x, indent+"    ")})
				} else {
					hiddenAttrs++
				}
			case x.IsNull():
				lines = append(lines, attrLine{"+", name, value(y, indent+"    ") + w.forces(apath)})
			case y.IsNull():
				lines = append(lines, attrLine{"-", name, value(x, indent+"    ") + " -> null" + w.forces(apath)})
			default:
				lines = append(lines, attrLine{"~", name, value(x, indent+"    ") + " -> " + value(y, indent+"    ") + w.forces(apath)})
			}
		}
	}
	width := 0
	for _, l := range lines {
		width = max(width, len(l.name))
	}
	for _, l := range lines {
		fmt.Fprintf(w.b, "%s  %s %s = %s\n", indent, w.c.symbol(l.sym), pad(l.name, width), l.text)
	}
	if hiddenAttrs > 0 {
		fmt.Fprintf(w.b, "%s    %s\n", indent, hidden(hiddenAttrs, "attribute"))
	}

	blocks := make([]*config.NestedBlock, len(schema.Blocks))
	copy(blocks, schema.Blocks)
	sort.Slice(blocks, func(i, j int) bool { return blocks[i].Name < blocks[j].Name })
	wrote := len(lines) > 0 || hiddenAttrs > 0
	hiddenBlocks := 0
	for _, nb := range blocks {
		x, y := get(bv, nb.Name), get(av, nb.Name)
		bpath := append(copyPath(path), cty.GetAttrStep{Name: nb.Name})
		sub := action
		switch action {
		case planner.Create:
			if y.IsNull() {
				continue
			}
		case planner.Delete:
			if x.IsNull() {
				continue
			}
		default:
			switch {
			case x.IsNull() && y.IsNull():
				continue
			case x.IsNull():
				sub = planner.Create
			case y.IsNull():
				sub = planner.Delete
			case !blockChanged(nb.Block, x, y):
				hiddenBlocks++
				continue
			default:
				sub = planner.Update
			}
		}
		if wrote {
			w.b.WriteString("\n")
		}
		wrote = true
		note := ""
		if sub != action {
			note = w.forces(bpath)
		}
		fmt.Fprintf(w.b, "%s  %s %s {%s\n", indent, w.c.symbol(sub.Symbol()), nb.Name, note)
		w.body(nb.Block, x, y, sub, bpath, depth+1)
		fmt.Fprintf(w.b, "%s    }\n", indent)
	}
	if hiddenBlocks > 0 {
		if wrote {
			w.b.WriteString("\n")
		}
		fmt.Fprintf(w.b, "%s    %s\n", indent, hidden(hiddenBlocks, "block"))
	}
}

// forces returns " # forces replacement" when path forces replacement.
func (w *blockWriter) forces(path cty.Path) string {
	for _, p := range w.replace {
		if p.Equals(path) {
			return w.c.style(" # forces replacement", red)
		}
	}
	return ""
}

func hidden(n int, what string) string {
	if n != 1 {
		what += "s"
	}
	return fmt.Sprintf("# (%d unchanged %s hidden)", n, what)
}

// blockChanged reports whether anything differs inside a nested block.
func blockChanged(schema *config.Block, before, after cty.Value) bool {
	if !before.IsKnown() || !after.IsKnown() {
		return true
	}
	return !before.RawEquals(after)
}

func attrMap(v cty.Value) map[string]cty.Value {
	if v == cty.NilVal || v.IsNull() || !v.IsKnown() {
		return nil
	}
	return v.AsValueMap()
}

// get returns m[name], or null when the object itself is absent.
func get(m map[string]cty.Value, name string) cty.Value {
	if v, ok := m[name]; ok {
		return v
	}
	return cty.NullVal(cty.DynamicPseudoType)
}

func copyPath(p cty.Path) cty.Path { return append(cty.Path(nil), p...) }

func sortedKeys(m map[string]cty.Value) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
