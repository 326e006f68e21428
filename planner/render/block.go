package render

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/zclconf/go-cty/cty"
)

// blockWriter renders one object's attributes as Terraform's plan does:
// one line per shown attribute, names aligned, unchanged attributes and
// blocks counted rather than shown in updates and replacements.
type blockWriter struct {
	b       *bytes.Buffer
	c       colorizer
	replace []cty.Path // paths that force replacement
	// The attributes whose value is sensitive, before and after: shown
	// as (sensitive value), as Terraform does.
	beforeSens, afterSens []cty.Path
	// plain: the object's values without symbols, as an import shows
	// what it adopts.
	plain bool
	// lines is body's scratch.
	lines []attrLine
}

// symbol is a line's symbol, or a blank for a plain object.
func (w *blockWriter) symbol(s string) string {
	if w.plain {
		return strings.Repeat(" ", len(s))
	}
	return w.c.symbol(s)
}

// sensitiveValue stands for a value a plan does not show.
const sensitiveValue = "(sensitive value)"

// sensitive reports whether attribute name of the body at path is
// sensitive before or after (for an update, on either side).
func (w *blockWriter) sensitive(path cty.Path, name string, before, after bool) bool {
	return before && hasPath(w.beforeSens, path, name) || after && hasPath(w.afterSens, path, name)
}

// hasPath reports whether ps holds path with name appended, without
// building it.
func hasPath(ps []cty.Path, path cty.Path, name string) bool {
	for _, p := range ps {
		if len(p) != len(path)+1 {
			continue
		}
		if ga, ok := p[len(path)].(cty.GetAttrStep); !ok || ga.Name != name {
			continue
		}
		if p[:len(path)].Equals(path) {
			return true
		}
	}
	return false
}

type attrLine struct {
	sym, name, text string
}

// body writes the attributes and nested blocks of an object (or nested
// block) at depth (1 for an object's body), with the whole object's
// action: Create and Delete show every value, Update and the replacements
// only what changes.
func (w *blockWriter) body(schema *config.Block, before, after cty.Value, action planner.Action, path cty.Path, depth int) {
	bv, av := attrsOf(before), attrsOf(after)
	indent := strings.Repeat("    ", depth)
	// The lines are written before any nested block's body, which then
	// reuses their slice.
	lines := w.lines[:0]
	if cap(lines) < len(schema.Attributes) {
		lines = make([]attrLine, 0, len(schema.Attributes))
	}
	defer func() { w.lines = lines[:0] }()
	hiddenAttrs := 0
	// apath is the attribute's path, for "# forces replacement", which
	// only updates and replacements show.
	apath := func(name string) cty.Path { return append(copyPath(path), cty.GetAttrStep{Name: name}) }
	for _, name := range sortedAttributes(schema) {
		x, y := bv.get(name), av.get(name)
		switch action {
		case planner.Create:
			if !y.IsNull() {
				text := sensitiveValue
				if !w.sensitive(path, name, false, true) {
					text = value(y, indent+"    ")
				}
				lines = append(lines, attrLine{"+", name, text})
			}
		case planner.Delete:
			if !x.IsNull() && x.IsKnown() {
				text := sensitiveValue
				if !w.sensitive(path, name, true, false) {
					text = value(x, indent+"    ")
				}
				lines = append(lines, attrLine{"-", name, text + " -> null"})
			}
		default:
			// Either side sensitive hides both, as in Terraform.
			sens := w.sensitive(path, name, true, true)
			show := func(v cty.Value) string {
				if sens {
					return sensitiveValue
				}
				return value(v, indent+"    ")
			}
			switch {
			case x.IsNull() && y.IsNull():
			case x.IsKnown() && y.IsKnown() && x.RawEquals(y):
				if name == "id" && !x.IsNull() {
					lines = append(lines, attrLine{" ", name, show(x)})
				} else {
					hiddenAttrs++
				}
			case x.IsNull():
				lines = append(lines, attrLine{"+", name, show(y) + w.forces(apath(name))})
			case y.IsNull():
				lines = append(lines, attrLine{"-", name, show(x) + " -> null" + w.forces(apath(name))})
			case sens:
				lines = append(lines, attrLine{"~", name, sensitiveValue + w.forces(apath(name))})
			default:
				lines = append(lines, attrLine{"~", name, value(x, indent+"    ") + " -> " + value(y, indent+"    ") + w.forces(apath(name))})
			}
		}
	}
	width := 0
	for _, l := range lines {
		width = max(width, len(l.name))
	}
	for _, l := range lines {
		// indent + "  " + symbol + " " + name padded + " = " + text
		w.b.WriteString(indent)
		w.b.WriteString("  ")
		w.b.WriteString(w.symbol(l.sym))
		w.b.WriteString(" ")
		w.b.WriteString(pad(l.name, width))
		w.b.WriteString(" = ")
		w.b.WriteString(l.text)
		w.b.WriteString("\n")
	}
	if hiddenAttrs > 0 {
		fmt.Fprintf(w.b, "%s    %s\n", indent, hidden(hiddenAttrs, "attribute"))
	}

	wrote := len(lines) > 0 || hiddenAttrs > 0
	hiddenBlocks := 0
	for _, nb := range sortedBlocks(schema) {
		x, y := bv.get(nb.Name), av.get(nb.Name)
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
		bpath := apath(nb.Name)
		note := ""
		if sub != action {
			note = w.forces(bpath)
		}
		w.b.WriteString(indent + "  " + w.symbol(sub.Symbol()) + " " + nb.Name + " {" + note + "\n")
		w.body(nb.Block, x, y, sub, bpath, depth+1)
		w.b.WriteString(indent + "    }\n")
	}
	if hiddenBlocks > 0 {
		if wrote {
			w.b.WriteString("\n")
		}
		fmt.Fprintf(w.b, "%s    %s\n", indent, hidden(hiddenBlocks, "block"))
	}
}

// sorted holds a schema's attribute names and nested blocks in name
// order, computed once per schema.
type sorted struct {
	attrs  []string
	blocks []*config.NestedBlock
}

var sortedSchemas sync.Map // *config.Block -> *sorted

func sortedOf(schema *config.Block) *sorted {
	if s, ok := sortedSchemas.Load(schema); ok {
		return s.(*sorted)
	}
	s := &sorted{attrs: make([]string, 0, len(schema.Attributes)), blocks: make([]*config.NestedBlock, len(schema.Blocks))}
	for _, a := range schema.Attributes {
		s.attrs = append(s.attrs, a.Name)
	}
	sort.Strings(s.attrs)
	copy(s.blocks, schema.Blocks)
	sort.Slice(s.blocks, func(i, j int) bool { return s.blocks[i].Name < s.blocks[j].Name })
	actual, _ := sortedSchemas.LoadOrStore(schema, s)
	return actual.(*sorted)
}

func sortedAttributes(schema *config.Block) []string          { return sortedOf(schema).attrs }
func sortedBlocks(schema *config.Block) []*config.NestedBlock { return sortedOf(schema).blocks }

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

// attrs is an object whose attributes body reads one by one (without
// building a map of them): absent when the object is null or unknown.
type attrs struct {
	v       cty.Value
	present bool
}

func attrsOf(v cty.Value) attrs {
	if v == cty.NilVal || v.IsNull() || !v.IsKnown() {
		return attrs{}
	}
	v, _ = v.Unmark()
	return attrs{v: v, present: v.Type().IsObjectType() || v.Type().IsMapType()}
}

// get returns the attribute name, or null when the object or the
// attribute is absent.
func (a attrs) get(name string) cty.Value {
	if a.present {
		ty := a.v.Type()
		switch {
		case ty.IsObjectType() && ty.HasAttribute(name):
			return a.v.GetAttr(name)
		case ty.IsMapType():
			if k := cty.StringVal(name); a.v.HasIndex(k).True() {
				return a.v.Index(k)
			}
		}
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
