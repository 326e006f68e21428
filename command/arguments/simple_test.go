package arguments

import (
	"reflect"
	"testing"

	"github.com/rdmaform/rdmaform/config"
)

func TestParseSimpleCommands(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		got  func([]string) (any, Diagnostics)
		want any
	}{
		{"validate defaults", nil, wrap(ParseValidate), Validate{}},
		{"validate options", []string{"-json", "--no-color", "-device-check"}, wrap(ParseValidate), Validate{View: View{JSON: true, NoColor: true}, DeviceCheck: true}},
		{"validate help", []string{"-help"}, wrap(ParseValidate), Validate{Help: true}},
		{"fmt defaults", nil, wrap(ParseFmt), Fmt{List: true, Write: true, Paths: []string{"."}}},
		// -check only reports: it writes nothing.
		{"fmt check", []string{"-check", "-diff", "-recursive", "-list=false", "a", "-"}, wrap(ParseFmt),
			Fmt{Check: true, Diff: true, Recursive: true, Paths: []string{"a", "-"}}},
		{"fmt no-color", []string{"-no-color", "-write=false"}, wrap(ParseFmt), Fmt{View: View{NoColor: true}, List: true, Paths: []string{"."}}},
		{"version", []string{"-json", "-no-color"}, wrap(ParseVersion), Version{View: View{JSON: true}}},
		{"console", []string{"-var", "a=1", "-no-color"}, wrap(ParseConsole), Console{View: View{NoColor: true}, Vars: Vars{Args: config.VarArgs{{Value: "a=1"}}}}},
		{"graph defaults", nil, wrap(ParseGraph), Graph{Type: "plan"}},
		{"graph destroy", []string{"-type=plan-destroy", "-draw-cycles", "-no-color"}, wrap(ParseGraph), Graph{Type: "plan-destroy", Destroy: true}},
		{"graph apply", []string{"-type", "apply"}, wrap(ParseGraph), Graph{Type: "apply"}},
		{"status", []string{"-json", "-watch", "-agent=/run/a.sock", "-no-color"}, wrap(ParseStatus), Status{View: View{JSON: true}, Watch: true, Agent: "/run/a.sock"}},
		{"monitor", []string{"-agent", "s", "-no-color", "-demo"}, wrap(ParseMonitor), Monitor{View: View{NoColor: true}, Agent: "s", Demo: true}},
		{"monitor help", []string{"--h"}, wrap(ParseMonitor), Monitor{Help: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, diags := tc.got(tc.args)
			if len(diags) > 0 {
				t.Fatalf("%q: unexpected diagnostics: %q", tc.args, errorsOf(diags))
			}
			if !reflect.DeepEqual(tc.want, got) {
				t.Errorf("%q:\n got %+v\nwant %+v", tc.args, got, tc.want)
			}
		})
	}
}

// wrap makes a Parse function's result comparable by value.
func wrap[T any](parse func([]string) (*T, Diagnostics)) func([]string) (any, Diagnostics) {
	return func(args []string) (any, Diagnostics) {
		v, diags := parse(args)
		return *v, diags
	}
}

func TestParseSimpleCommandErrors(t *testing.T) {
	t.Parallel()
	pointer := func(name string) string {
		return "\n\nFor more help on using this command, run:\n  rdmaform " + name + " -help"
	}
	tests := []struct {
		name  string
		args  []string
		parse func([]string) (any, Diagnostics)
		want  []string
		help  bool // the command's help follows
	}{
		{"validate argument", []string{"dir"}, wrap(ParseValidate), []string{"validate takes no arguments; use -chdir=DIR to validate another directory.\n\n"}, false},
		{"validate bad option", []string{"-nope"}, wrap(ParseValidate), []string{"Failed to parse command-line flags\n\nflag provided but not defined: -nope" + pointer("validate")}, false},
		{"fmt bad value", []string{"-list=maybe"}, wrap(ParseFmt), []string{"Failed to parse command-line flags\n\n" + `invalid boolean value "maybe" for -list: parse error` + pointer("fmt")}, false},
		{"version argument", []string{"a", "b"}, wrap(ParseVersion), []string{`version takes no arguments, got ["a" "b"]` + "\n\n"}, false},
		{"console bad var", []string{"-var=x"}, wrap(ParseConsole), []string{"Failed to parse command-line flags\n\n" + `invalid value "x" for flag -var: the value must be name=value, such as -var 'port=7471'` + pointer("console")}, false},
		// Both problems, not only the first.
		{"graph type and argument", []string{"-type=nope", "x"}, wrap(ParseGraph), []string{
			"Invalid -type=nope\n\nThe graph types are plan, plan-refresh-only, plan-destroy and apply.",
			"graph takes no arguments; use -chdir=DIR to graph another directory.\n\n"}, false},
		{"status argument", []string{"x"}, wrap(ParseStatus), []string{`status takes no arguments, got ["x"]` + "\n\n"}, false},
		{"monitor argument", []string{"x"}, wrap(ParseMonitor), []string{`monitor takes no arguments, got ["x"]` + "\n\n"}, true},
		{"monitor bad options", []string{"-nope", "-agent"}, wrap(ParseMonitor), []string{"Failed to parse command-line flags\n\nflag provided but not defined: -nope\nflag needs an argument: -agent" + pointer("monitor")}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := tc.parse(tc.args)
			if !diags.HasErrors() {
				t.Fatalf("%q: no error", tc.args)
			}
			sameErrors(t, tc.args, tc.want, diags)
			if got := HelpAfter(diags[len(diags)-1]); got != tc.help {
				t.Errorf("%q: help after the error: %v, want %v", tc.args, got, tc.help)
			}
		})
	}
}
