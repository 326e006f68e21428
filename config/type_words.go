package config

import (
	"fmt"
	"sort"
	"strings"

	"github.com/zclconf/go-cty/cty"
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
		return s("bool (true or false)", "bools (true or false)")
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
