package config

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// EnvPrefix starts the environment variables that set input variables:
// RDMAFORM_VAR_name=value.
const EnvPrefix = "RDMAFORM_VAR_"

// VarInputs are the variable values given from outside the configuration.
// Precedence, lowest first, as Terraform's: the variable's default, the
// environment, rdmaform.rdmavars, *.auto.rdmavars in lexical order, then
// -var and -var-file in command-line order.
type VarInputs struct {
	Args VarArgs  // -var and -var-file, in command-line order
	Env  []string // "NAME=value" entries (os.Environ()); only RDMAFORM_VAR_* are used
}

// VarArg is one -var 'name=value' or -var-file=FILE option.
type VarArg struct {
	File  bool   // -var-file
	Value string // "name=value", or the file's path
}

// VarArgs collects -var and -var-file options in order. Register it on a
// command's FlagSet:
//
//	var vars config.VarArgs
//	vars.Register(fs)
type VarArgs []VarArg

// Register adds -var and -var-file to fs, both appending to a.
func (a *VarArgs) Register(fs *flag.FlagSet) {
	fs.Var(varFlag{a, false}, "var", "Set a variable: -var 'name=value' (repeatable).")
	fs.Var(varFlag{a, true}, "var-file", "Load variable values from an .rdmavars file (repeatable).")
}

type varFlag struct {
	args *VarArgs
	file bool
}

func (f varFlag) String() string { return "" }

func (f varFlag) Set(s string) error {
	if !f.file && !strings.Contains(s, "=") {
		return fmt.Errorf("the value must be name=value, such as -var 'port=7471'")
	}
	*f.args = append(*f.args, VarArg{File: f.file, Value: s})
	return nil
}

// rawValue is a value for a variable before conversion to its type.
type rawValue struct {
	expr hcl.Expression // from a file: evaluated without variables
	str  string         // from -var or the environment
	from string         // "-var", "environment variable NAME"
}

// assignVariables gives every variable its value from the inputs, the
// default or (in validate mode) an unknown value.
//
// unreadable says that a variable file could not be read or parsed: as
// Terraform, which stops there, it reports no variable as missing a
// value (the file may be the one setting it); the caller evaluates
// nothing.
func (l *Loader) assignVariables(dir string, vars map[string]*Variable, in VarInputs) (diags hcl.Diagnostics, unreadable bool) {
	raw := map[string]rawValue{}
	readFile := func(path string) {
		d, ok := l.readVarFile(path, vars, raw)
		diags = append(diags, d...)
		unreadable = unreadable || !ok
	}
	for _, kv := range in.Env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(k, EnvPrefix) {
			continue
		}
		name := strings.TrimPrefix(k, EnvPrefix)
		if _, declared := vars[name]; declared {
			raw[name] = rawValue{str: v, from: "environment variable " + k}
		}
	}
	if dir != "" {
		var files []string
		for _, name := range []string{VarsFile, VarsFile + ".json"} {
			if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
				files = append(files, filepath.Join(dir, name))
			}
		}
		files = append(files, autoVarFiles(dir)...)
		for _, f := range files {
			readFile(f)
		}
	}
	for _, a := range in.Args {
		if a.File {
			readFile(a.Value)
			continue
		}
		name, v, found := strings.Cut(a.Value, "=")
		name = strings.TrimSpace(name)
		if !found || name == "" {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid -var option",
				Detail: fmt.Sprintf("The given -var option %q is not correctly specified. Must be a variable name and value separated by an equals sign, like -var=\"key=value\".", a.Value)})
			continue
		}
		if _, declared := vars[name]; !declared {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Value for undeclared variable",
				Detail: fmt.Sprintf("A variable named %q was assigned with -var, but the configuration declares no such variable.%s", name, DidYouMean(name, mapKeys(vars)))})
			continue
		}
		raw[name] = rawValue{str: v, from: "-var"}
	}
	if l.Ask != nil && !l.Validate && !unreadable {
		var missing []string
		for name, v := range vars {
			if _, given := raw[name]; !given && v.Default == cty.NilVal {
				missing = append(missing, name)
			}
		}
		sort.Strings(missing)
		for _, name := range missing {
			if answer, ok := l.Ask(name, vars[name].Description, vars[name].Sensitive); ok {
				raw[name] = rawValue{str: answer, from: "the prompt"}
				l.Asked = append(l.Asked, VarArg{Value: name + "=" + answer})
			}
		}
	}
	for name, v := range vars {
		r, given := raw[name]
		switch {
		case given:
			ty := v.Type
			if v.untyped && r.expr == nil {
				ty = cty.String
			}
			val, d := r.value(ty, v.defaults, name, v.Sensitive)
			for _, dd := range d {
				if dd.Subject == nil {
					// A -var or environment value: point at the
					// declaration, as Terraform does.
					dd.Subject = v.DeclRange.Ptr()
				}
			}
			diags = append(diags, d...)
			v.Value = val
			v.errored = d.HasErrors()
			if v.notNullable && !v.errored && val.IsNull() {
				if v.Default != cty.NilVal && !v.Default.IsNull() {
					v.Value = v.Default // as Terraform does for nullable = false
				} else {
					v.errored = true
					diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid value for variable",
						Detail:  fmt.Sprintf("The value for var.%s from %s is null, and the variable is declared nullable = false.", name, r.from),
						Subject: v.DeclRange.Ptr()})
				}
			}
		case v.Default != cty.NilVal:
			v.Value = v.Default
		case l.Validate:
			v.Value = cty.UnknownVal(v.Type)
		case unreadable:
			v.Value = cty.UnknownVal(v.Type)
			v.errored = true
		default:
			v.Value = cty.UnknownVal(v.Type)
			v.errored = true
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "No value for required variable",
				Detail:  fmt.Sprintf("The variable %q has no default, so it needs a value: -var '%s=...', a -var-file, %s%s, or %s.", name, name, EnvPrefix, name, VarsFile),
				Subject: v.DeclRange.Ptr()})
		}
	}
	return diags, unreadable
}

// value converts a raw value to the variable's type. A string from the
// command line or the environment is taken literally for a string
// variable (or one without a type) and parsed as an HCL expression
// otherwise, as Terraform does.
// The errors of a sensitive variable do not quote its value.
func (r rawValue) value(ty cty.Type, defaults *typeexpr.Defaults, name string, sensitive bool) (cty.Value, hcl.Diagnostics) {
	var v cty.Value
	expr := r.expr
	if expr == nil {
		if ty == cty.String {
			v = cty.StringVal(r.str)
		} else {
			e, diags := hclsyntax.ParseExpression([]byte(r.str), fmt.Sprintf("<value for var.%s>", name), hcl.InitialPos)
			if diags.HasErrors() || len(e.Variables()) > 0 {
				shown := strconv.Quote(r.str)
				if sensitive {
					shown = "the value (sensitive, so not shown)"
				}
				return cty.UnknownVal(ty), hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid value for variable",
					Detail: fmt.Sprintf("The value for var.%s from %s is not %s: %s is not a valid expression of that type (write it as in a .rdmavars file: \"a\" for a string, [\"a\", \"b\"] for a list).", name, r.from, typeWords(ty), shown)}}
			}
			expr = e
		}
	}
	if expr != nil {
		var diags hcl.Diagnostics
		// As Terraform: values are literals, evaluated without functions
		// or variables, so a JSON file's strings are taken as written
		// ("${x}" stays "${x}").
		v, diags = expr.Value(nil)
		if diags.HasErrors() {
			if sensitive && r.expr == nil {
				// A -var or environment value has no source to point at;
				// its diagnostics may quote it.
				return cty.UnknownVal(ty), hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid value for variable",
					Detail: fmt.Sprintf("The value for var.%s from %s is not %s (it is sensitive, so it is not shown).", name, r.from, typeWords(ty))}}
			}
			return cty.UnknownVal(ty), diags
		}
	}
	if defaults != nil {
		v = defaults.Apply(v)
	}
	cv, err := convert.Convert(v, ty)
	if err != nil {
		detail := fmt.Sprintf("The value for var.%s from %s is not %s: %s.", name, r.from, typeWords(ty), conversionWords(v.Type(), ty, err))
		var pe cty.PathError
		if errors.As(err, &pe) && len(pe.Path) > 0 || v.Type().IsObjectType() && ty.IsObjectType() {
			// Deep in the value: say where, rather than that the whole is
			// not of its type.
			detail = fmt.Sprintf("The value for var.%s from %s does not fit its type: %s.", name, r.from, conversionWords(v.Type(), ty, err))
		}
		d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid value for variable", Detail: detail}
		if r.expr != nil {
			d.Subject = r.expr.Range().Ptr()
		}
		return cty.UnknownVal(ty), hcl.Diagnostics{d}
	}
	return cv, nil
}

// readVarFile takes the values a variable file gives into raw; ok is
// false when the file could not be read or parsed, so that none of its
// values is known.
func (l *Loader) readVarFile(path string, vars map[string]*Variable, raw map[string]rawValue) (diags hcl.Diagnostics, ok bool) {
	src, err := os.ReadFile(path)
	if err != nil {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Failed to read variables file", Detail: err.Error()}}, false
	}
	var f *hcl.File
	if strings.HasSuffix(path, ".json") {
		f, diags = l.parser.ParseJSON(src, path)
	} else {
		f, diags = l.parser.ParseHCL(src, path)
	}
	if diags.HasErrors() {
		return diags, false
	}
	attrs, d := f.Body.JustAttributes()
	diags = append(diags, d...)
	ok = !d.HasErrors() // a block in place of a value is a syntax error too
	for name, a := range attrs {
		if _, declared := vars[name]; !declared {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Value for undeclared variable",
				Detail:  fmt.Sprintf("The configuration declares no variable named %q; this value is ignored.%s", name, DidYouMean(name, mapKeys(vars))),
				Subject: a.NameRange.Ptr()})
			continue
		}
		raw[name] = rawValue{expr: a.Expr, from: path}
	}
	return diags, ok
}

// validate runs the variable's validation blocks in ctx, which has the
// variables and locals they refer to; failed says that the value broke
// one of them. Each failure shows the values its condition read (var.self
// is "node9"), as Terraform's does.
func (v *Variable) validate(ctx *hcl.EvalContext) (diags hcl.Diagnostics, failed bool) {
	for _, val := range v.validations {
		res, d := val.Condition.Value(ctx)
		diags = append(diags, d...)
		if d.HasErrors() || !res.IsKnown() {
			continue
		}
		res, err := convert.Convert(res, cty.Bool)
		if err == nil {
			res, _ = res.Unmark()
		}
		if err != nil || res.IsNull() {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid validation condition",
				Detail: "The condition must be true or false.", Subject: val.Condition.Range().Ptr()})
			continue
		}
		if res.True() {
			continue
		}
		msg := "The value is not valid."
		if mv, md := val.ErrorMessage.Value(ctx); !md.HasErrors() && mv.IsKnown() && !mv.IsNull() && mv.Type() == cty.String {
			if mv.HasMark(sensitiveMark) || v.Sensitive && len(val.ErrorMessage.Variables()) > 0 {
				msg = "The error message included a sensitive value, so it will not be displayed."
			} else {
				msg = mv.AsString()
			}
		}
		failed = true
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid value for variable",
			Detail:     fmt.Sprintf("%s\n\nThis was checked by the validation rule at %s.", msg, val.DeclRange),
			Subject:    val.Condition.Range().Ptr(),
			Expression: val.Condition, EvalContext: ctx})
	}
	return diags, failed
}

// autoVarFiles lists dir's *.auto.rdmavars and *.auto.rdmavars.json
// files in lexical order, as Terraform loads its *.auto.tfvars(.json).
func autoVarFiles(dir string) []string {
	auto, _ := filepath.Glob(filepath.Join(dir, "*"+AutoVarsSuffix))
	asJSON, _ := filepath.Glob(filepath.Join(dir, "*"+AutoVarsSuffix+".json"))
	auto = append(auto, asJSON...)
	sort.Strings(auto)
	return auto
}

// pathError says where in a value a conversion failed (attribute "qp",
// attribute "send": a number is required), as Terraform does.
func pathError(pe cty.PathError) string {
	var steps []string
	for _, step := range pe.Path {
		switch s := step.(type) {
		case cty.GetAttrStep:
			steps = append(steps, fmt.Sprintf("attribute %q", s.Name))
		case cty.IndexStep:
			switch {
			case s.Key.Type() == cty.String:
				steps = append(steps, fmt.Sprintf("element %q", s.Key.AsString()))
			case s.Key.Type() == cty.Number:
				steps = append(steps, fmt.Sprintf("element %s", s.Key.AsBigFloat().Text('f', -1)))
			}
		}
	}
	return strings.Join(steps, ", ") + ": " + pe.Error()
}
