package config

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// typeWords names a type in a sentence, with its article: "a number", "a
// set of numbers", "a list of lists of strings", "an object with
// attributes "a" and "b"". cty's own names ("set of dynamic", "object")
// are its internals: a user wrote toset([]) or { a = 1 }, not a type.
func typeWords(ty cty.Type) string {
	return withArticle(typeNoun(ty, false))
}

// typeNoun is typeWords without the article, plural for the elements of
// a collection.
func typeNoun(ty cty.Type, plural bool) string {
	s := func(one, many string) string {
		if plural {
			return many
		}
		return one
	}
	switch {
	case ty == cty.DynamicPseudoType:
		return s("value of type any", "values of any type")
	case ty == cty.String:
		return s("string", "strings")
	case ty == cty.Number:
		return s("number", "numbers")
	case ty == cty.Bool:
		return s("bool", "bools")
	case ty.IsListType():
		return s("list", "lists") + " of " + typeNoun(ty.ElementType(), true)
	case ty.IsSetType():
		return s("set", "sets") + " of " + typeNoun(ty.ElementType(), true)
	case ty.IsMapType():
		return s("map", "maps") + " of " + typeNoun(ty.ElementType(), true)
	case ty.IsTupleType():
		n := len(ty.TupleElementTypes())
		if n == 0 {
			return s("empty list", "empty lists")
		}
		return s("list", "lists") + fmt.Sprintf(" of %d %s", n, plural1(n, "element", "elements"))
	case ty.IsObjectType():
		names := make([]string, 0, len(ty.AttributeTypes()))
		for name := range ty.AttributeTypes() {
			names = append(names, fmt.Sprintf("%q", name))
		}
		sort.Strings(names)
		switch len(names) {
		case 0:
			return s("object with no attributes", "objects with no attributes")
		case 1:
			return s("object", "objects") + " with attribute " + names[0]
		case 2, 3, 4:
			return s("object", "objects") + " with attributes " + strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
		default:
			return s("object", "objects") + fmt.Sprintf(" with %d attributes", len(names))
		}
	}
	return ty.FriendlyName() // capsules: their own names
}

func plural1(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// conversionWords is convert.Convert's error for a value of type got that
// does not convert to want, in words: where the types part (attribute
// "a", element 0) and what was required there. cty's own message names
// types as cty does ("number required, but have bool").
func conversionWords(got, want cty.Type, err error) string {
	var pe cty.PathError
	switch {
	case errors.As(err, &pe) && len(pe.Path) > 0:
		return pathError(pe)
	case convert.GetConversionUnsafe(got, want) == nil:
		return mismatchWords(got, want)
	}
	return err.Error()
}

// mismatchWords says why got cannot convert to want, following the
// first attribute or element that cannot, as cty's MismatchMessage does,
// and naming the path as pathError does (attribute "b", element 0: ...).
func mismatchWords(got, want cty.Type) string {
	var steps []string
	for {
		step, g, w, leaf := mismatchStep(got, want)
		if step == "" {
			if len(steps) == 0 {
				return leaf
			}
			return strings.Join(steps, ", ") + ": " + leaf
		}
		steps = append(steps, step)
		got, want = g, w
	}
}

// mismatchStep is one step of mismatchWords: the attribute or element
// where got and want part, with their types there, or else (step "")
// what is wrong here.
func mismatchStep(got, want cty.Type) (step string, g, w cty.Type, leaf string) {
	convertible := func(g, w cty.Type) bool { return g.Equals(w) || convert.GetConversionUnsafe(g, w) != nil }
	sorted := func(atys map[string]cty.Type) []string {
		names := make([]string, 0, len(atys))
		for name := range atys {
			names = append(names, name)
		}
		sort.Strings(names)
		return names
	}
	switch {
	case got.IsObjectType() && want.IsObjectType():
		names := sorted(want.AttributeTypes())
		for _, name := range names {
			if !got.HasAttribute(name) && !want.AttributeOptional(name) {
				return "", g, w, fmt.Sprintf("attribute %q is required", name)
			}
		}
		for _, name := range names {
			if got.HasAttribute(name) && !convertible(got.AttributeType(name), want.AttributeType(name)) {
				return fmt.Sprintf("attribute %q", name), got.AttributeType(name), want.AttributeType(name), ""
			}
		}
	case got.IsTupleType() && (want.IsListType() || want.IsSetType()):
		for i, ety := range got.TupleElementTypes() {
			if !convertible(ety, want.ElementType()) {
				return fmt.Sprintf("element %d", i), ety, want.ElementType(), ""
			}
		}
		if want.ElementType() == cty.DynamicPseudoType {
			return "", g, w, "all elements must have the same type"
		}
	case got.IsObjectType() && want.IsMapType():
		for _, name := range sorted(got.AttributeTypes()) {
			if !convertible(got.AttributeType(name), want.ElementType()) {
				return fmt.Sprintf("element %q", name), got.AttributeType(name), want.ElementType(), ""
			}
		}
		if want.ElementType() == cty.DynamicPseudoType {
			return "", g, w, "all elements must have the same type"
		}
	case got.IsCollectionType() && want.IsCollectionType() && got.IsMapType() == want.IsMapType():
		return "each element", got.ElementType(), want.ElementType(), ""
	}
	return "", g, w, fmt.Sprintf("%s is required, not %s", typeWords(want), typeWords(got))
}
