package config

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"
)

// Terraform's own versions of functions whose go-cty namesakes differ:
// index finds a value (go-cty's takes an element by key), replace takes a
// /regex/, lookup may go without a default. And a few Terraform functions
// go-cty lacks: transpose, matchkeys, issensitive.

// indexFunc is Terraform's index(list, value): the index of the first
// element equal to value.
var indexFunc = function.New(&function.Spec{
	Params: []function.Parameter{
		{Name: "list", Type: cty.DynamicPseudoType},
		{Name: "value", Type: cty.DynamicPseudoType},
	},
	Type: function.StaticReturnType(cty.Number),
	RefineResult: func(b *cty.RefinementBuilder) *cty.RefinementBuilder {
		return b.NotNull().NumberRangeLowerBound(cty.NumberIntVal(0), true)
	},
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		list, value := args[0], args[1]
		if ty := list.Type(); !ty.IsListType() && !ty.IsTupleType() {
			return cty.NilVal, function.NewArgErrorf(0, "argument must be a list or tuple, not %s", typeWords(ty))
		}
		if !list.IsWhollyKnown() || !value.IsKnown() {
			return cty.UnknownVal(cty.Number), nil
		}
		if list.LengthInt() == 0 {
			return cty.NilVal, function.NewArgErrorf(0, "cannot search an empty list")
		}
		for it := list.ElementIterator(); it.Next(); {
			// As Terraform's (and ==): values of different types differ.
			i, v := it.Element()
			if eq := v.Equals(value); eq.IsKnown() && eq.True() {
				return i, nil
			}
		}
		return cty.NilVal, errors.New("item not found")
	},
})

// stdlibEquals compares two values of possibly different types, as ==
// does: unequal types are unequal.
func stdlibEquals(a, b cty.Value) (bool, error) {
	if !a.Type().Equals(b.Type()) {
		ty, _ := convert.UnifyUnsafe([]cty.Type{a.Type(), b.Type()})
		if ty == cty.NilType {
			return false, nil
		}
		var err error
		if a, err = convert.Convert(a, ty); err != nil {
			return false, nil
		}
		if b, err = convert.Convert(b, ty); err != nil {
			return false, nil
		}
	}
	eq := a.Equals(b)
	return eq.IsKnown() && eq.True(), nil
}

// replaceFunc is Terraform's replace: a substring between slashes is a
// regular expression, and the replacement may use its groups ($1).
var replaceFunc = function.New(&function.Spec{
	Params: []function.Parameter{
		{Name: "str", Type: cty.String},
		{Name: "substr", Type: cty.String},
		{Name: "replace", Type: cty.String},
	},
	Type: function.StaticReturnType(cty.String),
	RefineResult: func(b *cty.RefinementBuilder) *cty.RefinementBuilder {
		return b.NotNull()
	},
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		str, substr, repl := args[0].AsString(), args[1].AsString(), args[2].AsString()
		if len(substr) > 1 && substr[0] == '/' && substr[len(substr)-1] == '/' {
			re, err := regexp.Compile(substr[1 : len(substr)-1])
			if err != nil {
				return cty.NilVal, function.NewArgErrorf(1, "invalid regular expression: %s", err)
			}
			return cty.StringVal(re.ReplaceAllString(str, repl)), nil
		}
		return cty.StringVal(strings.ReplaceAll(str, substr, repl)), nil
	},
})

// lookupFunc is Terraform's lookup(map, key[, default]): without a
// default, a missing key is an error.
var lookupFunc = function.New(&function.Spec{
	Params: []function.Parameter{
		{Name: "inputMap", Type: cty.DynamicPseudoType},
		{Name: "key", Type: cty.String},
	},
	VarParam: &function.Parameter{Name: "default", Type: cty.DynamicPseudoType, AllowNull: true, AllowUnknown: true, AllowDynamicType: true},
	Type: func(args []cty.Value) (cty.Type, error) {
		if len(args) > 3 {
			return cty.NilType, fmt.Errorf("lookup takes at most three arguments: a map, a key and a default")
		}
		ty := args[0].Type()
		switch {
		case ty.IsMapType():
			if len(args) == 3 {
				if u, _ := convert.UnifyUnsafe([]cty.Type{ty.ElementType(), args[2].Type()}); u != cty.NilType {
					return u, nil
				}
				return cty.NilType, function.NewArgErrorf(2, "the default value must have the map's element type: %s", typeNoun(ty.ElementType(), false))
			}
			return ty.ElementType(), nil
		case ty.IsObjectType(), ty == cty.DynamicPseudoType:
			return cty.DynamicPseudoType, nil
		}
		return cty.NilType, function.NewArgErrorf(0, "argument must be a map or an object, not %s", typeWords(ty))
	},
	Impl: func(args []cty.Value, retType cty.Type) (cty.Value, error) {
		m, key := args[0], args[1].AsString()
		if !m.IsKnown() {
			return cty.UnknownVal(retType), nil
		}
		var found cty.Value
		switch ty := m.Type(); {
		case ty.IsObjectType():
			if ty.HasAttribute(key) {
				found = m.GetAttr(key)
			}
		case !m.IsNull():
			if k := cty.StringVal(key); m.HasIndex(k).True() {
				found = m.Index(k)
			}
		}
		if found == cty.NilVal {
			if len(args) < 3 {
				return cty.NilVal, fmt.Errorf("the given key %q does not exist in the map (give lookup a default)", key)
			}
			found = args[2]
		}
		if retType == cty.DynamicPseudoType {
			return found, nil
		}
		return convert.Convert(found, retType)
	},
})

// transposeFunc is Terraform's transpose: a map of lists of strings with
// keys and values swapped.
var transposeFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "values", Type: cty.Map(cty.List(cty.String))}},
	Type:   function.StaticReturnType(cty.Map(cty.List(cty.String))),
	Impl: func(args []cty.Value, retType cty.Type) (cty.Value, error) {
		if !args[0].IsWhollyKnown() {
			return cty.UnknownVal(retType), nil
		}
		out := map[string][]string{}
		for it := args[0].ElementIterator(); it.Next(); {
			k, list := it.Element()
			if list.IsNull() {
				return cty.NilVal, errors.New("lists must not be null")
			}
			for li := list.ElementIterator(); li.Next(); {
				_, v := li.Element()
				if v.IsNull() {
					return cty.NilVal, errors.New("lists must not contain null values")
				}
				out[v.AsString()] = append(out[v.AsString()], k.AsString())
			}
		}
		if len(out) == 0 {
			return cty.MapValEmpty(cty.List(cty.String)), nil
		}
		vals := make(map[string]cty.Value, len(out))
		for k, ks := range out {
			sort.Strings(ks)
			l := make([]cty.Value, len(ks))
			for i, s := range ks {
				l[i] = cty.StringVal(s)
			}
			vals[k] = cty.ListVal(l)
		}
		return cty.MapVal(vals), nil
	},
})

// matchkeysFunc is Terraform's matchkeys(values, keys, searchset): the
// elements of values whose element of keys at the same index is in
// searchset.
var matchkeysFunc = function.New(&function.Spec{
	Params: []function.Parameter{
		{Name: "values", Type: cty.List(cty.DynamicPseudoType)},
		{Name: "keys", Type: cty.List(cty.DynamicPseudoType)},
		{Name: "searchset", Type: cty.List(cty.DynamicPseudoType)},
	},
	Type: func(args []cty.Value) (cty.Type, error) {
		if u, _ := convert.UnifyUnsafe([]cty.Type{args[1].Type(), args[2].Type()}); u == cty.NilType {
			return cty.NilType, function.NewArgErrorf(1, "keys and searchset must be of the same type")
		}
		return args[0].Type(), nil
	},
	Impl: func(args []cty.Value, retType cty.Type) (cty.Value, error) {
		values, keys, search := args[0], args[1], args[2]
		if !keys.IsWhollyKnown() || !search.IsWhollyKnown() || !values.IsKnown() {
			return cty.UnknownVal(retType), nil
		}
		if values.LengthInt() != keys.LengthInt() {
			return cty.NilVal, errors.New("length of keys and values should be equal")
		}
		var out []cty.Value
		for i := 0; i < keys.LengthInt(); i++ {
			k := keys.Index(cty.NumberIntVal(int64(i)))
			for it := search.ElementIterator(); it.Next(); {
				_, s := it.Element()
				if eq, _ := stdlibEquals(k, s); eq {
					out = append(out, values.Index(cty.NumberIntVal(int64(i))))
					break
				}
			}
		}
		if len(out) == 0 {
			return cty.ListValEmpty(retType.ElementType()), nil
		}
		return cty.ListVal(out), nil
	},
})

// issensitiveFunc is Terraform's issensitive: whether a value is marked
// sensitive.
var issensitiveFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "value", Type: cty.DynamicPseudoType, AllowUnknown: true, AllowNull: true, AllowMarked: true, AllowDynamicType: true}},
	Type:   function.StaticReturnType(cty.Bool),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		if !args[0].IsKnown() && !args[0].HasMark(sensitiveMark) {
			return cty.UnknownVal(cty.Bool), nil // it may yet be
		}
		return cty.BoolVal(args[0].HasMark(sensitiveMark)), nil
	},
})
