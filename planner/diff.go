package planner

import (
	"github.com/rdmaform/rdmaform/config"
	"github.com/zclconf/go-cty/cty"
)

// reconcile returns the desired value of an object already in the state:
// configured attributes that are unknown (computed from attributes known
// only after apply) take the prior value unless depsCreating says what
// they are computed from is being created or replaced in this plan.
// Computed attributes stay unknown; withPriorComputed copies them in.
func reconcile(b *config.Block, before, after cty.Value, depsCreating bool) cty.Value {
	if after.IsNull() || !after.IsKnown() || before.IsNull() || !before.IsKnown() {
		if !after.IsKnown() && !depsCreating && !before.IsNull() && before.IsKnown() {
			return withoutComputed(b, before)
		}
		return after
	}
	av := after.AsValueMap()
	bv := before.AsValueMap()
	out := make(map[string]cty.Value, len(av))
	for k, v := range av {
		out[k] = v
	}
	for _, a := range b.Attributes {
		if a.Computed {
			continue
		}
		if v := av[a.Name]; !v.IsKnown() && !depsCreating {
			out[a.Name] = bv[a.Name]
		}
	}
	for _, nb := range b.Blocks {
		out[nb.Name] = reconcile(nb.Block, bv[nb.Name], av[nb.Name], depsCreating)
	}
	return cty.ObjectVal(out)
}

// withoutComputed returns v with its computed attributes unknown.
func withoutComputed(b *config.Block, v cty.Value) cty.Value {
	if v.IsNull() || !v.IsKnown() {
		return v
	}
	m := v.AsValueMap()
	for _, a := range b.Attributes {
		if a.Computed {
			m[a.Name] = cty.UnknownVal(a.Type)
		}
	}
	return cty.ObjectVal(m)
}

// withPriorComputed returns after with the computed attributes of before:
// an object updated in place or left alone keeps its id, qp_num, ...
func withPriorComputed(b *config.Block, before, after cty.Value) cty.Value {
	if before.IsNull() || after.IsNull() || !after.IsKnown() {
		return after
	}
	m := after.AsValueMap()
	bv := before.AsValueMap()
	for _, a := range b.Attributes {
		if a.Computed {
			m[a.Name] = bv[a.Name]
		}
	}
	return cty.ObjectVal(m)
}

// ignoreChanges returns after with the values of before at paths.
func ignoreChanges(after, before cty.Value, paths []cty.Path) cty.Value {
	if len(paths) == 0 || before.IsNull() {
		return after
	}
	out, _ := cty.Transform(after, func(p cty.Path, v cty.Value) (cty.Value, error) {
		for _, ip := range paths {
			if p.Equals(ip) {
				prior, err := ip.Apply(before)
				if err != nil {
					return v, nil // the prior value has no such path (null block)
				}
				return prior, nil
			}
		}
		return v, nil
	})
	return out
}

// changedPaths lists the configured (not computed) attributes whose
// desired value differs from the prior one, appending to out, without
// building the reconciled value (see reconcile), which a no-change plan of
// 10,000 objects cannot afford. An unknown desired value is unchanged
// unless depsCreating; paths in ignore are unchanged. A nested block that
// appears or disappears is one path, the block's. With fields bf (a
// known, non-null object) before is not read, and may be cty.NilVal.
func changedPaths(b *config.Block, before cty.Value, bf *fields, after cty.Value, depsCreating bool, ignore []cty.Path, path cty.Path, out []cty.Path) []cty.Path {
	if ignored(ignore, path) {
		return out
	}
	switch {
	case !after.IsKnown():
		if depsCreating {
			return append(out, copyPath(path))
		}
		return out
	case bf == nil && !before.IsKnown():
		return append(out, copyPath(path))
	}
	bNull, aNull := bf == nil && before.IsNull(), after.IsNull()
	switch {
	case bNull && aNull:
		return out
	case bNull != aNull:
		return append(out, copyPath(path))
	}
	// GetAttr rather than AsValueMap, which sorts and copies every
	// attribute and costs twice as much over a 10,000-object plan.
	for i, a := range b.Attributes {
		if a.Computed {
			continue
		}
		x, y := bf.attrAt(before, i, a.Name), after.GetAttr(a.Name)
		if !y.IsKnown() {
			if depsCreating && !ignored(ignore, append(path, cty.GetAttrStep{Name: a.Name})) {
				out = append(out, copyPath(append(path, cty.GetAttrStep{Name: a.Name})))
			}
			continue
		}
		if !x.IsKnown() || !primitiveEqual(x, y) {
			p := append(path, cty.GetAttrStep{Name: a.Name})
			if !ignored(ignore, p) {
				out = append(out, copyPath(p))
			}
		}
	}
	for i, nb := range b.Blocks {
		bv, nbf := bf.blockAt(before, i, nb.Name)
		out = changedPaths(nb.Block, bv, nbf, after.GetAttr(nb.Name), depsCreating, ignore, append(path, cty.GetAttrStep{Name: nb.Name}), out)
	}
	return out
}

// primitiveEqual compares two known values of one attribute as RawEquals
// does; nulls, strings and bools directly, which is much cheaper than
// RawEquals. Numbers go to RawEquals: cty gives a number only as a copy,
// which costs what its own comparison does.
func primitiveEqual(x, y cty.Value) bool {
	if x.IsMarked() || y.IsMarked() {
		return x.RawEquals(y)
	}
	if xNull, yNull := x.IsNull(), y.IsNull(); xNull || yNull {
		return xNull && yNull && x.Type().Equals(y.Type())
	}
	if !x.Type().Equals(y.Type()) {
		return false
	}
	switch x.Type() {
	case cty.String:
		return x.AsString() == y.AsString()
	case cty.Bool:
		return x.True() == y.True()
	}
	return x.RawEquals(y)
}

func ignored(ignore []cty.Path, p cty.Path) bool {
	for _, ip := range ignore {
		if len(p) > 0 && ip.Equals(p) {
			return true
		}
	}
	return false
}

func copyPath(p cty.Path) cty.Path { return append(cty.Path(nil), p...) }
