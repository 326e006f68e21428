package apply

import (
	"encoding/json"
	"math/big"
	"slices"
	"strconv"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// marshalValue encodes v as ctyjson.Marshal(v, v.Type()) does, byte for
// byte, without its reflection and big-number formatting for the values
// objects hold (strings, integers, bools, nested objects and
// collections): recording a thousand objects is then mostly the
// journal's work. Anything else (dynamic types, marks, unknowns,
// capsules, non-integer numbers) goes to ctyjson.
func marshalValue(v cty.Value) ([]byte, error) {
	if b, ok := appendValue(make([]byte, 0, 512), v); ok {
		return b, nil
	}
	return ctyjson.Marshal(v, v.Type())
}

// appendValue appends v's encoding, or reports false when v needs
// ctyjson.
func appendValue(b []byte, v cty.Value) ([]byte, bool) { return appendJSON(b, v, false) }

// appendKnown appends the encoding of cty.UnknownAsNull(v), or reports
// false when that needs cty (a set holding unknowns) or ctyjson.
func appendKnown(b []byte, v cty.Value) ([]byte, bool) { return appendJSON(b, v, true) }

func appendJSON(b []byte, v cty.Value, unknownAsNull bool) ([]byte, bool) {
	if v.IsMarked() {
		return b, false
	}
	if !v.IsKnown() {
		if unknownAsNull {
			return append(b, "null"...), true
		}
		return b, false
	}
	if v.IsNull() {
		return append(b, "null"...), true
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		return appendString(b, v.AsString()), true
	case ty == cty.Number:
		return appendNumber(b, v.AsBigFloat())
	case ty == cty.Bool:
		return strconv.AppendBool(b, v.True()), true
	case ty.IsObjectType():
		atys := ty.AttributeTypes()
		names := make([]string, 0, len(atys))
		for k := range atys {
			names = append(names, k)
		}
		slices.Sort(names)
		b = append(b, '{')
		for i, k := range names {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			var ok bool
			if b, ok = appendJSON(b, v.GetAttr(k), unknownAsNull); !ok {
				return b, false
			}
		}
		return append(b, '}'), true
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType():
		if unknownAsNull && ty.IsSetType() && !v.IsWhollyKnown() {
			return b, false // UnknownAsNull may merge the set's elements
		}
		b = append(b, '[')
		first := true
		for it := v.ElementIterator(); it.Next(); {
			if !first {
				b = append(b, ',')
			}
			first = false
			_, e := it.Element()
			var ok bool
			if b, ok = appendJSON(b, e, unknownAsNull); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	case ty.IsMapType():
		b = append(b, '{')
		first := true
		for it := v.ElementIterator(); it.Next(); {
			if !first {
				b = append(b, ',')
			}
			first = false
			k, e := it.Element()
			b = appendString(b, k.AsString())
			b = append(b, ':')
			var ok bool
			if b, ok = appendJSON(b, e, unknownAsNull); !ok {
				return b, false
			}
		}
		return append(b, '}'), true
	}
	return b, false
}

// appendNumber writes an integer that fits in 64 bits; others are left to
// ctyjson (which writes Text('f', -1) and refuses infinities).
func appendNumber(b []byte, f *big.Float) ([]byte, bool) {
	if f.IsInf() || !f.IsInt() || f.Sign() == 0 && f.Signbit() { // -0 is written "-0"
		return b, false
	}
	i, acc := f.Int64()
	if acc != big.Exact {
		return b, false
	}
	return strconv.AppendInt(b, i, 10), true
}

// appendString quotes s as encoding/json does: plain printable ASCII as
// it is, anything else (escapes, HTML characters, UTF-8) through
// json.Marshal.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
