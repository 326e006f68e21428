package arguments

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/apply"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
)

// mustAddr parses an address a test names.
func mustAddr(t *testing.T, s string) addrs.Instance {
	t.Helper()
	a, err := addrs.ParseInstance(s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// errorsOf is diags as "Summary\n\nDetail" strings, for comparison.
func errorsOf(diags Diagnostics) []string {
	var out []string
	for _, d := range diags {
		out = append(out, d.Summary+"\n\n"+d.Detail)
	}
	return out
}

// sameArgs compares parsed options, leaving out the raw option values
// kept while parsing.
func sameArgs[T any](t *testing.T, args []string, want, got T, op func(*T) *Operation) {
	t.Helper()
	if o := op(&got); o != nil {
		o.targets, o.replace = nil, nil
	}
	if !reflect.DeepEqual(want, got) {
		t.Errorf("%q:\n got %+v\nwant %+v", args, got, want)
	}
}

func planOp(p *Plan) *Operation { return &p.Operation }

// sameErrors compares diagnostics with the messages wanted.
func sameErrors(t *testing.T, args []string, want []string, diags Diagnostics) {
	t.Helper()
	got := errorsOf(diags)
	if !reflect.DeepEqual(want, got) {
		t.Errorf("%q:\n got %q\nwant %q", args, got, want)
	}
}

func defaultOperation() Operation {
	return Operation{Refresh: true, Parallelism: apply.DefaultParallelism}
}

func TestParsePlan(t *testing.T) {
	t.Setenv("RDMAFORM_INPUT", "")
	client := mustAddr(t, "endpoint.client")
	tests := map[string]struct {
		args []string
		want Plan
	}{
		"defaults": {nil, Plan{State: State{Lock: true}, Operation: defaultOperation(), Input: true}},
		"everything": {
			[]string{"-out=p.tfplan", "-detailed-exitcode", "-json", "-no-color", "-compact-warnings", "-input=false",
				"-lock=false", "-lock-timeout=5s", "-parallelism=3", "-refresh=false", "-destroy",
				"-target=endpoint.client", "-var", "a=1", "-var-file=x.tfvars"},
			Plan{
				State: State{Lock: false, LockTimeout: 5 * time.Second},
				Operation: Operation{Targets: []addrs.Instance{client}, Destroy: true, Refresh: false,
					Parallelism: 3, ParallelismSet: true},
				Vars:    Vars{Args: config.VarArgs{{Value: "a=1"}, {File: true, Value: "x.tfvars"}}},
				View:    View{JSON: true, NoColor: true, CompactWarnings: true},
				OutPath: "p.tfplan", DetailedExitCode: true,
			},
		},
		// Go's flag package reads --x as -x: users write both.
		"double dashes": {[]string{"--refresh-only", "--target", "endpoint.client"},
			Plan{State: State{Lock: true}, Input: true,
				Operation: Operation{Targets: []addrs.Instance{client}, Refresh: true, RefreshOnly: true, Parallelism: apply.DefaultParallelism}}},
		"replace": {[]string{"-replace=endpoint.client"},
			Plan{State: State{Lock: true}, Input: true,
				Operation: Operation{Replace: []addrs.Instance{client}, Refresh: true, Parallelism: apply.DefaultParallelism}}},
		"help":   {[]string{"-no-color", "-help"}, Plan{Help: true}},
		"-h":     {[]string{"-h"}, Plan{Help: true}},
		"--help": {[]string{"--help"}, Plan{Help: true}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, diags := ParsePlan(tc.args)
			if len(diags) > 0 {
				t.Fatalf("%q: unexpected diagnostics: %q", tc.args, errorsOf(diags))
			}
			sameArgs(t, tc.args, tc.want, *got, planOp)
		})
	}
}

func TestParsePlanInputFromEnvironment(t *testing.T) {
	for _, v := range []string{"false", "0"} {
		t.Setenv("RDMAFORM_INPUT", v)
		got, _ := ParsePlan(nil)
		if got.Input {
			t.Errorf("RDMAFORM_INPUT=%s: -input defaults to true", v)
		}
	}
}

func TestParsePlanErrors(t *testing.T) {
	t.Setenv("RDMAFORM_INPUT", "")
	help := "\n\nFor more help on using this command, run:\n  rdmaform plan -help"
	tests := map[string]struct {
		args []string
		want []string
	}{
		"unknown option": {[]string{"-no-such-option"},
			[]string{"Failed to parse command-line flags\n\nflag provided but not defined: -no-such-option" + help}},
		// Every bad option, not only the first, in one diagnostic.
		"several bad options": {[]string{"-nope", "-parallelism=0", "-lock-timeout=soon", "-var", "novalue"},
			[]string{"Failed to parse command-line flags\n\n" +
				"flag provided but not defined: -nope\n" +
				`invalid value "0" for flag -parallelism: "0" is not a whole number of at least 1` + "\n" +
				`invalid value "soon" for flag -lock-timeout: "soon" is not a duration: write a number with a unit, such as 5s, 2m or 1h30m` + "\n" +
				`invalid value "novalue" for flag -var: the value must be name=value, such as -var 'port=7471'` + help}},
		"negative lock timeout": {[]string{"-lock-timeout=-1s"},
			[]string{"Failed to parse command-line flags\n\n" + `invalid value "-1s" for flag -lock-timeout: "-1s" is negative` + help}},
		"missing value": {[]string{"-out"},
			[]string{"Failed to parse command-line flags\n\nflag needs an argument: -out" + help}},
		"an argument": {[]string{"dir"},
			[]string{"plan takes no arguments; use -chdir=DIR to plan another directory.\n\n"}},
		"destroy and refresh-only": {[]string{"-destroy", "-refresh-only"},
			[]string{"Incompatible plan options\n\nThe -destroy option cannot be used together with -refresh-only."}},
		"refresh-only without refresh": {[]string{"-refresh-only", "-refresh=false"},
			[]string{"Incompatible refresh options\n\nIt doesn't make sense to use -refresh-only at the same time as -refresh=false,\nbecause rdmaform would have nothing to do."}},
		"replace and refresh-only": {[]string{"-refresh-only", "-replace=endpoint.client"},
			[]string{"Incompatible plan options\n\nThe -replace option cannot be used together with -refresh-only: a refresh-only\nplan changes no object."}},
		// Each bad address, and the other problems with them.
		"bad addresses": {[]string{"-target=nope", "-replace=endpoint", "-target=endpoint.client", "extra"},
			[]string{"plan takes no arguments; use -chdir=DIR to plan another directory.\n\n",
				"Invalid -target address\n\n" + addrError(t, "nope"),
				"Invalid -replace address\n\n" + addrError(t, "endpoint")}},
		// An error before -help is reported; -help does not hide it.
		"error then help": {[]string{"-nope", "-help"},
			[]string{"Failed to parse command-line flags\n\nflag provided but not defined: -nope" + help}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, diags := ParsePlan(tc.args)
			if !diags.HasErrors() || got.Help {
				t.Fatalf("ParsePlan(%q): no error", tc.args)
			}
			sameErrors(t, tc.args, tc.want, diags)
		})
	}
}

// addrError is what addrs.ParseInstance says of s.
func addrError(t *testing.T, s string) string {
	t.Helper()
	_, err := addrs.ParseInstance(s)
	if err == nil {
		t.Fatalf("%q parses", s)
	}
	if strings.TrimSpace(err.Error()) == "" {
		t.Fatalf("%q: empty error", s)
	}
	return err.Error()
}
