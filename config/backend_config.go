package config

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// The environment variables Terraform's etcdv3 backend reads for its
// username and password when the configuration sets none.
const (
	EnvEtcdUsername = "ETCDV3_USERNAME"
	EnvEtcdPassword = "ETCDV3_PASSWORD"
)

// SecretBackendArguments are the backend arguments whose values are never
// shown: not in messages, not with the source of a diagnostic, not in
// .rdmaform/backend.json.
var SecretBackendArguments = []string{"password"}

func isSecretArgument(name string) bool {
	for _, s := range SecretBackendArguments {
		if s == name {
			return true
		}
	}
	return false
}

// EtcdCredentials returns the username and password to authenticate
// with: those configured, each falling back to its environment variable
// when unset, as Terraform's etcdv3 backend does.
func EtcdCredentials(username, password string) (string, string) {
	if username == "" {
		username = os.Getenv(EnvEtcdUsername)
	}
	if password == "" {
		password = os.Getenv(EnvEtcdPassword)
	}
	return username, password
}

// CommandLineBackendConfig is the file name of the diagnostics about a
// -backend-config="key=value" option.
const CommandLineBackendConfig = "-backend-config option"

// ParseBackendConfig reads init's -backend-config options, as Terraform's:
// an item with "=" is one argument, key=value (the value a string, except
// endpoints', an HCL list such as ["http://h:2379"]); any other item is the
// path of a file of key = value arguments. A later item's argument
// replaces an earlier one's. Whether each key is an argument of the
// backend is checked by WithOverrides, which knows its type.
func (l *Loader) ParseBackendConfig(items []string) (hcl.Attributes, hcl.Diagnostics) {
	out := hcl.Attributes{}
	var diags hcl.Diagnostics
	for _, item := range items {
		name, raw, isArg := strings.Cut(item, "=")
		if !isArg {
			f, d := l.parser.ParseHCLFile(item)
			diags = append(diags, d...)
			if f == nil || d.HasErrors() {
				continue
			}
			attrs, d := f.Body.JustAttributes()
			diags = append(diags, d...)
			for n, a := range attrs {
				out[n] = a
			}
			continue
		}
		name = strings.TrimSpace(name)
		// An empty range: there is no source to show (see mergeOverrides).
		rng := hcl.Range{Filename: CommandLineBackendConfig, Start: hcl.InitialPos, End: hcl.InitialPos}
		if !hclsyntax.ValidIdentifier(name) {
			// The item itself is not shown: it may be a password.
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid backend configuration argument",
				Detail:   fmt.Sprintf("-backend-config=%q...: the part before \"=\" must be an argument name, such as prefix in -backend-config=\"prefix=rdmaform/prod\".", name),
			})
			continue
		}
		a := &hcl.Attribute{Name: name, NameRange: rng, Range: rng}
		if name == "endpoints" {
			// A list, so written as HCL, as Terraform parses the values of
			// arguments that are not strings.
			expr, d := hclsyntax.ParseExpression([]byte(raw), CommandLineBackendConfig, hcl.InitialPos)
			if d.HasErrors() {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Invalid backend configuration argument",
					Detail:   fmt.Sprintf("-backend-config=\"endpoints=%s\": endpoints is a list, written as in HCL: -backend-config='endpoints=[\"http://127.0.0.1:2379\"]'.", raw),
				})
				continue
			}
			a.Expr = expr
		} else {
			a.Expr = hcl.StaticExpr(cty.StringVal(raw), rng)
		}
		out[name] = a
	}
	return out, diags
}

// WithOverrides returns the backend block decoded again with the arguments
// in over replacing the block's, as Terraform merges -backend-config
// values over a backend block (which may be empty: backend "etcd" {}). It
// checks that the result is complete: an etcd backend has its endpoints,
// and a username its password (or the reverse), from any source,
// environment included. over may be nil.
func (be *Backend) WithOverrides(over hcl.Attributes) (*Backend, hcl.Diagnostics) {
	if be == nil || be.block == nil {
		return be, nil
	}
	return decodeBackend(be.block, over, true)
}

// mergeOverrides returns the block's attributes with over's replacing
// them; an argument of over the backend does not have is an error naming
// it.
func mergeOverrides(typ string, attrs, over hcl.Attributes, schema *hcl.BodySchema) (hcl.Attributes, hcl.Diagnostics) {
	if len(over) == 0 {
		return attrs, nil
	}
	var names []string
	for _, a := range schema.Attributes {
		names = append(names, a.Name)
	}
	var diags hcl.Diagnostics
	out := make(hcl.Attributes, len(attrs)+len(over))
	for n, a := range attrs {
		out[n] = a
	}
	keys := make([]string, 0, len(over))
	for n := range over {
		keys = append(keys, n)
	}
	sort.Strings(keys) // diagnostics in a stable order
	for _, n := range keys {
		a := over[n]
		known := false
		for _, s := range names {
			known = known || s == n
		}
		if !known {
			d := &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid backend configuration argument",
				Detail: fmt.Sprintf("The backend configuration argument %q given to init's -backend-config is not expected for the %q backend, whose arguments are %s.%s",
					n, typ, strings.Join(names, ", "), DidYouMean(n, names)),
			}
			if !a.NameRange.Empty() { // in a file, not a key=value option
				d.Subject = a.NameRange.Ptr()
			}
			diags = append(diags, d)
			continue
		}
		out[n] = a
	}
	return out, diags
}

// secretString is literalString for a secret argument: its diagnostics
// name where it is written but have no subject, so that they are shown
// without the source line, which holds the secret.
func secretString(a *hcl.Attribute) (string, hcl.Diagnostics) {
	v, diags := literalString(a)
	if diags.HasErrors() {
		return "", hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Incorrect attribute value type",
			Detail:   fmt.Sprintf("Inappropriate value for attribute %q at %s: a string is required (the value is not shown: it is secret).", a.Name, position(a.NameRange)),
		}}
	}
	return v, nil
}

// checkCredentials refuses a username without a password or the reverse,
// counting the environment variables, which stand in for unset arguments.
func checkCredentials(be *Backend, attrs hcl.Attributes) hcl.Diagnostics {
	user, pass := EtcdCredentials(be.Username, be.Password)
	if (user == "") == (pass == "") {
		return nil
	}
	given, missing, env := "username", "password", EnvEtcdPassword
	if user == "" {
		given, missing, env = "password", "username", EnvEtcdUsername
	}
	d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Incomplete etcd credentials"}
	where := ""
	if a, ok := attrs[given]; ok {
		if isSecretArgument(given) {
			// Said in the text, so that the source line, which holds the
			// password, is not shown.
			where = " at " + position(a.NameRange)
		} else {
			d.Subject = a.NameRange.Ptr()
		}
	} else {
		where = fmt.Sprintf(" (from $%s)", map[string]string{"username": EnvEtcdUsername, "password": EnvEtcdPassword}[given])
		d.Subject = be.DeclRange.Ptr()
	}
	d.Detail = fmt.Sprintf("The etcd backend has a %s%s but no %s: etcd authenticates with both. Set %s in the backend block, give it to init (-backend-config=\"%s=...\"), or set $%s.",
		given, where, missing, missing, missing, env)
	return hcl.Diagnostics{d}
}

// OverrideValues returns the values of init's -backend-config arguments,
// as strings or lists of strings, for init to record them; secret ones
// are left out (the caller keeps them apart).
func OverrideValues(over hcl.Attributes) map[string]any {
	out := map[string]any{}
	for n, a := range over {
		if isSecretArgument(n) {
			continue
		}
		v, diags := a.Expr.Value(nil)
		if diags.HasErrors() || v.IsNull() || !v.IsWhollyKnown() {
			continue // reported when decoded
		}
		switch {
		case v.Type() == cty.String:
			out[n] = v.AsString()
		case v.Type().IsListType() || v.Type().IsTupleType():
			var list []string
			for it := v.ElementIterator(); it.Next(); {
				_, e := it.Element()
				if e.Type() != cty.String || e.IsNull() {
					list = nil
					break
				}
				list = append(list, e.AsString())
			}
			if list != nil {
				out[n] = list
			}
		}
	}
	return out
}

// OverrideAttrs makes arguments of values (strings, or lists of strings
// as JSON decodes them), as recorded by init, for WithOverrides; their
// diagnostics name source.
func OverrideAttrs(values map[string]any, source string) hcl.Attributes {
	out := hcl.Attributes{}
	rng := hcl.Range{Filename: source, Start: hcl.InitialPos, End: hcl.InitialPos}
	for n, v := range values {
		var cv cty.Value
		switch v := v.(type) {
		case string:
			cv = cty.StringVal(v)
		case []string:
			cv = stringList(v)
		case []any:
			var list []string
			for _, e := range v {
				s, _ := e.(string)
				list = append(list, s)
			}
			cv = stringList(list)
		default:
			cv = cty.DynamicVal // refused as the wrong type when decoded
		}
		out[n] = &hcl.Attribute{Name: n, Expr: hcl.StaticExpr(cv, rng), NameRange: rng, Range: rng}
	}
	return out
}

func stringList(list []string) cty.Value {
	if len(list) == 0 {
		return cty.ListValEmpty(cty.String)
	}
	vals := make([]cty.Value, len(list))
	for i, s := range list {
		vals[i] = cty.StringVal(s)
	}
	return cty.ListVal(vals)
}
