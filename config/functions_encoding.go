package config

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/ianaindex"
)

// Terraform's encodings of text as bytes, in base64 (the bytes are not a
// string of the language): base64gzip, textencodebase64 and
// textdecodebase64, whose character encodings are IANA's names.

// base64GzipFunc is Terraform's base64gzip: the string's UTF-8 bytes
// gzip-compressed, in base64.
var base64GzipFunc = function.New(&function.Spec{
	Description: "Compresses a string with gzip and encodes the result in Base64.",
	Params:      []function.Parameter{{Name: "str", Type: cty.String}},
	Type:        function.StaticReturnType(cty.String),
	RefineResult: func(b *cty.RefinementBuilder) *cty.RefinementBuilder {
		return b.NotNull()
	},
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		var b bytes.Buffer
		gz := gzip.NewWriter(&b)
		// As Terraform's: a flush before the close, whose empty block the
		// result keeps, so the same string gives Terraform's bytes.
		_, err := gz.Write([]byte(args[0].AsString()))
		if err == nil {
			err = gz.Flush()
		}
		if err == nil {
			err = gz.Close()
		}
		if err != nil {
			return cty.UnknownVal(cty.String), fmt.Errorf("cannot gzip the string: %w", err)
		}
		return cty.StringVal(base64.StdEncoding.EncodeToString(b.Bytes())), nil
	},
})

// ianaEncoding is the character encoding an IANA name or alias (UTF-16LE,
// windows-1252, cp437) names, with its IANA name for messages.
func ianaEncoding(name string) (encoding.Encoding, string, error) {
	enc, err := ianaindex.IANA.Encoding(name)
	if err != nil || enc == nil {
		return nil, "", function.NewArgErrorf(1, "%q is not a supported IANA encoding name or alias in this rdmaform version", name)
	}
	canonical, err := ianaindex.IANA.Name(enc)
	if err != nil {
		canonical = name
	}
	return enc, canonical, nil
}

// textEncodeBase64Func is Terraform's textencodebase64(string, encoding):
// the string in that character encoding, in base64.
var textEncodeBase64Func = function.New(&function.Spec{
	Description: "Encodes the given string using the given character encoding and returns the result in Base64.",
	Params:      []function.Parameter{{Name: "string", Type: cty.String}, {Name: "encoding", Type: cty.String}},
	Type:        function.StaticReturnType(cty.String),
	RefineResult: func(b *cty.RefinementBuilder) *cty.RefinementBuilder {
		return b.NotNull()
	},
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		enc, name, err := ianaEncoding(args[1].AsString())
		if err != nil {
			return cty.UnknownVal(cty.String), err
		}
		out, err := enc.NewEncoder().Bytes([]byte(args[0].AsString()))
		if err != nil {
			return cty.UnknownVal(cty.String), function.NewArgErrorf(0, "the given string contains characters that cannot be represented in %s", name)
		}
		return cty.StringVal(base64.StdEncoding.EncodeToString(out)), nil
	},
})

// textDecodeBase64Func is Terraform's textdecodebase64(source, encoding):
// base64 bytes of text in that character encoding, as a string.
var textDecodeBase64Func = function.New(&function.Spec{
	Description: "Decodes a string that was previously Base64-encoded, and then interprets the result as characters in the given character encoding.",
	Params:      []function.Parameter{{Name: "source", Type: cty.String}, {Name: "encoding", Type: cty.String}},
	Type:        function.StaticReturnType(cty.String),
	RefineResult: func(b *cty.RefinementBuilder) *cty.RefinementBuilder {
		return b.NotNull()
	},
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		enc, name, err := ianaEncoding(args[1].AsString())
		if err != nil {
			return cty.UnknownVal(cty.String), err
		}
		raw, err := base64.StdEncoding.DecodeString(args[0].AsString())
		if err != nil {
			var corrupt base64.CorruptInputError
			if errors.As(err, &corrupt) {
				return cty.UnknownVal(cty.String), function.NewArgErrorf(0, "the given value has an invalid base64 symbol at offset %d", int64(corrupt))
			}
			return cty.UnknownVal(cty.String), function.NewArgErrorf(0, "invalid base64: %s", err)
		}
		text, err := enc.NewDecoder().Bytes(raw)
		// A byte the encoding does not define decodes to U+FFFD.
		if err != nil || bytes.ContainsRune(text, '\uFFFD') {
			return cty.UnknownVal(cty.String), function.NewArgErrorf(0, "the given string contains symbols that are not defined for %s", name)
		}
		return cty.StringVal(string(text)), nil
	},
})
