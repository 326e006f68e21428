package config

import (
	"encoding/base64"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/go-cty-funcs/cidr"
	"github.com/hashicorp/go-cty-funcs/collection"
	"github.com/hashicorp/go-cty-funcs/crypto"
	"github.com/hashicorp/go-cty-funcs/encoding"
	"github.com/hashicorp/hcl/v2/ext/tryfunc"
	yaml "github.com/zclconf/go-cty-yaml"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

var (
	funcsOnce sync.Once
	funcs     map[string]function.Function
)

// Functions is the function table of expressions, with Terraform's names:
// go-cty's stdlib (strings, collections, numbers, encodings, format,
// regex, dates), the cidr family, base64, hashes, urlencode and YAML
// (hashicorp/go-cty-funcs, zclconf/go-cty-yaml), type conversions and
// try/can, and Terraform's own index, replace, lookup, coalesce,
// startswith, endswith, strcontains, alltrue, anytrue, one, sum,
// transpose, matchkeys, sensitive, nonsensitive and issensitive, which
// go-cty does not have or has otherwise; base64gzip, textencodebase64,
// textdecodebase64 and plantimestamp (unknown here: a Load's table has
// the plan's time). timestamp, uuid and type are there only to say why
// a configuration cannot call them (see Offered).
// The map is shared; do not modify it.
func Functions() map[string]function.Function {
	funcsOnce.Do(func() {
		funcs = map[string]function.Function{
			"abs": stdlib.AbsoluteFunc, "ceil": stdlib.CeilFunc, "floor": stdlib.FloorFunc,
			"log": stdlib.LogFunc, "max": stdlib.MaxFunc, "min": stdlib.MinFunc,
			"parseint": stdlib.ParseIntFunc, "pow": stdlib.PowFunc, "signum": stdlib.SignumFunc,
			"chomp": stdlib.ChompFunc, "format": stdlib.FormatFunc, "formatlist": stdlib.FormatListFunc,
			"indent": stdlib.IndentFunc, "join": stdlib.JoinFunc, "lower": stdlib.LowerFunc,
			"regex": stdlib.RegexFunc, "regexall": stdlib.RegexAllFunc, "replace": replaceFunc,
			"split": stdlib.SplitFunc, "strrev": stdlib.ReverseFunc, "substr": stdlib.SubstrFunc,
			"title": stdlib.TitleFunc, "trim": stdlib.TrimFunc, "trimprefix": stdlib.TrimPrefixFunc,
			"trimsuffix": stdlib.TrimSuffixFunc, "trimspace": stdlib.TrimSpaceFunc, "upper": stdlib.UpperFunc,
			"chunklist": stdlib.ChunklistFunc, "coalesce": collection.CoalesceFunc, "coalescelist": stdlib.CoalesceListFunc,
			"compact": stdlib.CompactFunc, "concat": stdlib.ConcatFunc, "contains": stdlib.ContainsFunc,
			"distinct": stdlib.DistinctFunc, "element": stdlib.ElementFunc, "flatten": stdlib.FlattenFunc,
			"index": indexFunc, "keys": stdlib.KeysFunc, "length": lengthFunc,
			"lookup": lookupFunc, "transpose": transposeFunc, "matchkeys": matchkeysFunc, "merge": stdlib.MergeFunc, "range": stdlib.RangeFunc,
			"reverse": stdlib.ReverseListFunc, "setintersection": stdlib.SetIntersectionFunc,
			"setproduct": stdlib.SetProductFunc, "setsubtract": stdlib.SetSubtractFunc,
			"setunion": stdlib.SetUnionFunc, "slice": stdlib.SliceFunc, "sort": stdlib.SortFunc,
			"values": stdlib.ValuesFunc, "zipmap": stdlib.ZipmapFunc,
			"jsonencode": stdlib.JSONEncodeFunc, "jsondecode": stdlib.JSONDecodeFunc,
			"csvdecode": stdlib.CSVDecodeFunc, "formatdate": stdlib.FormatDateFunc, "timeadd": stdlib.TimeAddFunc,
			"base64encode": base64EncodeFunc, "base64decode": base64DecodeFunc, "base64gzip": base64GzipFunc,
			"textencodebase64": textEncodeBase64Func, "textdecodebase64": textDecodeBase64Func,
			"plantimestamp": planTimestampFunc(time.Time{}),
			"tostring":      stdlib.MakeToFunc(cty.String), "tonumber": stdlib.MakeToFunc(cty.Number),
			"tobool": stdlib.MakeToFunc(cty.Bool), "tolist": stdlib.MakeToFunc(cty.List(cty.DynamicPseudoType)),
			"toset": stdlib.MakeToFunc(cty.Set(cty.DynamicPseudoType)), "tomap": stdlib.MakeToFunc(cty.Map(cty.DynamicPseudoType)),
			"cidrhost": cidrHostFunc, "cidrnetmask": cidrNetmaskFunc, "cidrsubnet": cidrSubnetFunc, "cidrsubnets": cidr.SubnetsFunc,
			"urlencode": encoding.URLEncodeFunc, "yamlencode": yaml.YAMLEncodeFunc, "yamldecode": yaml.YAMLDecodeFunc,
			"md5": crypto.Md5Func, "sha1": crypto.Sha1Func, "sha256": crypto.Sha256Func, "sha512": crypto.Sha512Func,
			"try": tryfunc.TryFunc, "can": tryfunc.CanFunc,
			"startswith": startsWithFunc, "endswith": endsWithFunc, "strcontains": strContainsFunc,
			"alltrue": allTrueFunc, "anytrue": anyTrueFunc, "one": oneFunc, "sum": sumFunc,
			"sensitive": sensitiveFunc, "nonsensitive": nonsensitiveFunc, "issensitive": issensitiveFunc,
		}
		for name, f := range fileFunctions() {
			funcs[name] = f
		}
		for name, why := range absentFunctions {
			funcs[name] = absentFunc(why)
		}
	})
	return funcs
}

// Offered is the functions a configuration can call, by name: Functions
// without those absent on purpose (timestamp, uuid) and the console's
// type.
func Offered() map[string]function.Function {
	out := make(map[string]function.Function, len(Functions()))
	for name, f := range Functions() {
		if _, absent := absentFunctions[name]; !absent {
			out[name] = f
		}
	}
	return out
}

// functions is the table of one Load: Functions with plantimestamp() the
// plan's time, and in the console type().
func (l *Loader) functions(planTime time.Time) map[string]function.Function {
	out := make(map[string]function.Function, len(Functions())+1)
	for name, f := range Functions() {
		out[name] = f
	}
	out["plantimestamp"] = planTimestampFunc(planTime)
	if l.Console {
		out["type"] = typeFunc
	}
	return out
}

// lengthFunc is Terraform's length: the number of elements of a
// collection or structural value, or of characters (grapheme clusters) of
// a string. go-cty's LengthFunc takes collections only.
var lengthFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "value", Type: cty.DynamicPseudoType, AllowDynamicType: true, AllowUnknown: true}},
	Type: func(args []cty.Value) (cty.Type, error) {
		ty := args[0].Type()
		if ty == cty.String || ty == cty.DynamicPseudoType || ty.IsCollectionType() || ty.IsTupleType() || ty.IsObjectType() {
			return cty.Number, nil
		}
		return cty.NilType, function.NewArgErrorf(0, "argument must be a string, a collection or a structural value; got %s", typeWords(ty))
	},
	RefineResult: func(b *cty.RefinementBuilder) *cty.RefinementBuilder {
		return b.NotNull().NumberRangeLowerBound(cty.NumberIntVal(0), true)
	},
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		v := args[0]
		ty := v.Type()
		switch {
		case ty == cty.DynamicPseudoType:
			return cty.UnknownVal(cty.Number), nil
		case ty.IsTupleType():
			return cty.NumberIntVal(int64(len(ty.TupleElementTypes()))), nil
		case ty.IsObjectType():
			return cty.NumberIntVal(int64(len(ty.AttributeTypes()))), nil
		case ty == cty.String:
			if !v.IsKnown() {
				return cty.UnknownVal(cty.Number), nil
			}
			return stdlib.Strlen(v)
		default:
			return v.Length(), nil
		}
	},
})

var base64EncodeFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "str", Type: cty.String}},
	Type:   function.StaticReturnType(cty.String),
	RefineResult: func(b *cty.RefinementBuilder) *cty.RefinementBuilder {
		return b.NotNull()
	},
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		return cty.StringVal(base64.StdEncoding.EncodeToString([]byte(args[0].AsString()))), nil
	},
})

var base64DecodeFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "str", Type: cty.String}},
	Type:   function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		b, err := base64.StdEncoding.DecodeString(args[0].AsString())
		if err != nil {
			return cty.UnknownVal(cty.String), function.NewArgErrorf(0, "invalid base64: %s", err)
		}
		if !utf8.Valid(b) {
			return cty.UnknownVal(cty.String), function.NewArgErrorf(0, "the decoded bytes are not valid UTF-8")
		}
		return cty.StringVal(string(b)), nil
	},
})

// stringTestFunc is a function of two strings answering a question about
// the first: startswith, endswith, strcontains.
func stringTestFunc(second string, test func(s, t string) bool) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "string", Type: cty.String}, {Name: second, Type: cty.String}},
		Type:   function.StaticReturnType(cty.Bool),
		RefineResult: func(b *cty.RefinementBuilder) *cty.RefinementBuilder {
			return b.NotNull()
		},
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			return cty.BoolVal(test(args[0].AsString(), args[1].AsString())), nil
		},
	})
}

var (
	startsWithFunc  = stringTestFunc("prefix", strings.HasPrefix)
	endsWithFunc    = stringTestFunc("suffix", strings.HasSuffix)
	strContainsFunc = stringTestFunc("substr", strings.Contains)
)

// allTrueFunc is Terraform's alltrue: true when every element of a list
// of bools is true (so for an empty list); a null element counts as false.
var allTrueFunc = boolQuantifier(false)

// anyTrueFunc is Terraform's anytrue: true when some element of a list of
// bools is true (false for an empty list); null elements count as false.
var anyTrueFunc = boolQuantifier(true)

// boolQuantifier is alltrue (decisive false) or anytrue (decisive true):
// the first element whose truth (a null's is false) is decisive is the
// answer; with none, the answer is its opposite, or unknown while some
// element is.
func boolQuantifier(decisive bool) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "list", Type: cty.List(cty.Bool)}},
		Type:   function.StaticReturnType(cty.Bool),
		RefineResult: func(b *cty.RefinementBuilder) *cty.RefinementBuilder {
			return b.NotNull()
		},
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			unknown := false
			for it := args[0].ElementIterator(); it.Next(); {
				_, v := it.Element()
				switch {
				case !v.IsKnown():
					unknown = true
				case (!v.IsNull() && v.True()) == decisive:
					return cty.BoolVal(decisive), nil
				}
			}
			if unknown {
				return cty.UnknownVal(cty.Bool).RefineNotNull(), nil
			}
			return cty.BoolVal(!decisive), nil
		},
	})
}

// oneFunc is Terraform's one: the only element of a list, set or tuple of
// at most one element, null (of the element type) when there is none, and
// an error when there are more.
var oneFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "list", Type: cty.DynamicPseudoType, AllowDynamicType: true, AllowUnknown: true, AllowNull: true}},
	Type: func(args []cty.Value) (cty.Type, error) {
		ty := args[0].Type()
		switch {
		case ty == cty.DynamicPseudoType:
			return cty.DynamicPseudoType, nil
		case ty.IsListType() || ty.IsSetType():
			return ty.ElementType(), nil
		case ty.IsTupleType():
			switch els := ty.TupleElementTypes(); len(els) {
			case 0:
				return cty.DynamicPseudoType, nil
			case 1:
				return els[0], nil
			}
		}
		return cty.NilType, function.NewArgErrorf(0, "must be a list, set, or tuple value with either zero or one elements")
	},
	Impl: func(args []cty.Value, retType cty.Type) (cty.Value, error) {
		v := args[0]
		if v.IsNull() {
			return cty.NilVal, function.NewArgErrorf(0, "argument must not be null")
		}
		if !v.IsKnown() || (v.Type().IsSetType() && !v.IsWhollyKnown()) {
			return cty.UnknownVal(retType), nil // a set's unknown elements may be equal
		}
		switch v.LengthInt() {
		case 0:
			return cty.NullVal(retType), nil
		case 1:
			it := v.ElementIterator()
			it.Next()
			_, el := it.Element()
			return el, nil
		}
		return cty.NilVal, function.NewArgErrorf(0, "must be a list, set, or tuple value with either zero or one elements")
	},
})

// sumFunc is Terraform's sum: the total of a non-empty list, set or tuple
// of numbers.
var sumFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "list", Type: cty.DynamicPseudoType}},
	Type: func(args []cty.Value) (cty.Type, error) {
		ty := args[0].Type()
		if !ty.IsListType() && !ty.IsSetType() && !ty.IsTupleType() {
			return cty.NilType, function.NewArgErrorf(0, "argument must be a list, a set or a tuple; got %s", typeWords(ty))
		}
		return cty.Number, nil
	},
	RefineResult: func(b *cty.RefinementBuilder) *cty.RefinementBuilder {
		return b.NotNull()
	},
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		v := args[0]
		if !v.IsWhollyKnown() {
			return cty.UnknownVal(cty.Number), nil
		}
		if v.LengthInt() == 0 {
			return cty.NilVal, function.NewArgErrorf(0, "cannot sum an empty list")
		}
		total := cty.Zero
		for it := v.ElementIterator(); it.Next(); {
			_, el := it.Element()
			if el.IsNull() {
				return cty.NilVal, function.NewArgErrorf(0, "argument must be list, set, or tuple of number values; it has a null element")
			}
			n, err := convert.Convert(el, cty.Number)
			if err != nil {
				return cty.NilVal, function.NewArgErrorf(0, "argument must be list, set, or tuple of number values: %s", err)
			}
			if n.AsBigFloat().IsInf() {
				return cty.NilVal, function.NewArgErrorf(0, "cannot sum infinite numbers")
			}
			total = total.Add(n)
		}
		return total, nil
	},
})

// functions is the table its expressions were evaluated with.
func (c *Config) functions() map[string]function.Function {
	if c.funcs == nil {
		return Functions()
	}
	return c.funcs
}
