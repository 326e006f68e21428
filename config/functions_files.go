package config

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"time"

	"github.com/hashicorp/go-cty-funcs/filesystem"
	"github.com/hashicorp/go-cty-funcs/uuid"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// Terraform's file and path functions read relative paths from the
// working directory, which -chdir sets to the configuration's; and its
// pure functions go-cty's stdlib lacks.
func fileFunctions() map[string]function.Function {
	return map[string]function.Function{
		"file": filesystem.MakeFileFunc(".", false), "filebase64": filesystem.MakeFileFunc(".", true),
		"fileexists": filesystem.MakeFileExistsFunc("."), "fileset": filesystem.MakeFileSetFunc("."),
		"basename": filesystem.BasenameFunc, "dirname": filesystem.DirnameFunc,
		"abspath": filesystem.AbsPathFunc, "pathexpand": filesystem.PathExpandFunc,
		"templatefile":     templateFileFunc(),
		"uuidv5":           uuid.V5Func,
		"base64sha256":     base64HashFunc(func(b []byte) []byte { s := sha256.Sum256(b); return s[:] }),
		"base64sha512":     base64HashFunc(func(b []byte) []byte { s := sha512.Sum512(b); return s[:] }),
		"timecmp":          timeCmpFunc,
		"filemd5":          fileHashFunc(func(b []byte) []byte { s := md5.Sum(b); return s[:] }, hex.EncodeToString),
		"filesha1":         fileHashFunc(func(b []byte) []byte { s := sha1.Sum(b); return s[:] }, hex.EncodeToString),
		"filesha256":       fileHashFunc(func(b []byte) []byte { s := sha256.Sum256(b); return s[:] }, hex.EncodeToString),
		"filesha512":       fileHashFunc(func(b []byte) []byte { s := sha512.Sum512(b); return s[:] }, hex.EncodeToString),
		"filebase64sha256": fileHashFunc(func(b []byte) []byte { s := sha256.Sum256(b); return s[:] }, base64.StdEncoding.EncodeToString),
		"filebase64sha512": fileHashFunc(func(b []byte) []byte { s := sha512.Sum512(b); return s[:] }, base64.StdEncoding.EncodeToString),
	}
}

// fileHashFunc is Terraform's filemd5, filesha256 and the like: the
// digest of a file's bytes (any bytes, unlike file's UTF-8), encoded.
func fileHashFunc(sum func([]byte) []byte, encode func([]byte) string) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "path", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			path := args[0].AsString()
			src, err := os.ReadFile(path)
			if err != nil {
				return cty.UnknownVal(cty.String), function.NewArgErrorf(0, "no file exists at %s; this function works only with files that are distributed as part of the configuration source code, so if this file will be created by a resource in this configuration you must instead obtain this result from an attribute of that resource", path)
			}
			return cty.StringVal(encode(sum(src))), nil
		},
	})
}

// templateFileFunc is Terraform's templatefile(path, vars): the file is an
// HCL template whose variables are vars' keys, with every function but
// templatefile itself (a template may not read templates).
func templateFileFunc() function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "path", Type: cty.String}, {Name: "vars", Type: cty.DynamicPseudoType}},
		Type:   function.StaticReturnType(cty.DynamicPseudoType),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			path := args[0].AsString()
			src, err := os.ReadFile(path)
			if err != nil {
				return cty.DynamicVal, function.NewArgErrorf(0, "no file exists at %s; this function works only with files that are distributed as part of the configuration source code", path)
			}
			expr, diags := hclsyntax.ParseTemplate(src, path, hcl.InitialPos)
			if diags.HasErrors() {
				return cty.DynamicVal, function.NewArgErrorf(0, "%s", diags.Error())
			}
			vars, ty := args[1], args[1].Type()
			if !(ty.IsObjectType() || ty.IsMapType()) || vars.IsNull() || !vars.IsWhollyKnown() {
				return cty.DynamicVal, function.NewArgErrorf(1, "invalid vars value: must be a map or object, known now")
			}
			vals := vars.AsValueMap()
			for _, tr := range expr.Variables() {
				if _, ok := vals[tr.RootName()]; !ok {
					r := tr.SourceRange()
					return cty.DynamicVal, function.NewArgErrorf(1, "vars map does not contain key %q, referenced at %s:%d,%d", tr.RootName(), r.Filename, r.Start.Line, r.Start.Column)
				}
			}
			funcs := make(map[string]function.Function, len(Functions()))
			for name, f := range Functions() {
				funcs[name] = f
			}
			funcs["templatefile"] = function.New(&function.Spec{
				VarParam: &function.Parameter{Name: "args", Type: cty.DynamicPseudoType, AllowNull: true, AllowUnknown: true, AllowDynamicType: true},
				Type:     function.StaticReturnType(cty.DynamicPseudoType),
				Impl: func([]cty.Value, cty.Type) (cty.Value, error) {
					return cty.DynamicVal, fmt.Errorf("cannot recursively call templatefile from inside templatefile call")
				},
			})
			v, diags := expr.Value(&hcl.EvalContext{Variables: vals, Functions: funcs})
			if diags.HasErrors() {
				return cty.DynamicVal, fmt.Errorf("%s", diags.Error())
			}
			return v, nil
		},
	})
}

// base64HashFunc hashes a string's UTF-8 bytes and encodes the digest in
// base64 (base64sha256, base64sha512).
func base64HashFunc(sum func([]byte) []byte) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "str", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			return cty.StringVal(base64.StdEncoding.EncodeToString(sum([]byte(args[0].AsString())))), nil
		},
	})
}

// timeCmpFunc is Terraform's timecmp: -1, 0 or 1 as the first RFC 3339
// timestamp is before, at or after the second.
var timeCmpFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "timestamp_a", Type: cty.String}, {Name: "timestamp_b", Type: cty.String}},
	Type:   function.StaticReturnType(cty.Number),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		var ts [2]time.Time
		for i, a := range args {
			t, err := time.Parse(time.RFC3339, a.AsString())
			if err != nil {
				return cty.UnknownVal(cty.Number), function.NewArgErrorf(i, "not a valid RFC3339 timestamp: %q", a.AsString())
			}
			ts[i] = t
		}
		return cty.NumberIntVal(int64(ts[0].Compare(ts[1]))), nil
	},
})
