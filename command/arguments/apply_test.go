package arguments

import (
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/apply"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
)

func applyOp(a *Apply) *Operation { return &a.Operation }

func TestParseApply(t *testing.T) {
	t.Setenv("RDMAFORM_INPUT", "")
	client := mustAddr(t, "endpoint.client")
	destroyOp := defaultOperation()
	destroyOp.Destroy = true
	refreshOp := defaultOperation()
	refreshOp.RefreshOnly = true
	tests := map[string]struct {
		parse func([]string) (*Apply, Diagnostics)
		args  []string
		want  Apply
	}{
		"apply defaults": {ParseApply, nil, Apply{Name: "apply", State: State{Lock: true}, Operation: defaultOperation(), Input: true}},
		"apply everything": {ParseApply,
			[]string{"-auto-approve", "-json", "-no-color", "-compact-warnings", "-input=false", "-lock-timeout=1m",
				"-parallelism=2", "-replace=endpoint.client", "-var=a=1"},
			Apply{Name: "apply", State: State{Lock: true, LockTimeout: time.Minute},
				Operation:   Operation{Replace: []addrs.Instance{client}, Refresh: true, Parallelism: 2, ParallelismSet: true},
				Vars:        Vars{Args: config.VarArgs{{Value: "a=1"}}},
				View:        View{JSON: true, NoColor: true, CompactWarnings: true},
				AutoApprove: true}},
		"apply a saved plan": {ParseApply, []string{"-monitor", "p.tfplan"},
			Apply{Name: "apply", State: State{Lock: true}, Operation: defaultOperation(), Input: true, Monitor: true, PlanPath: "p.tfplan"}},
		// A saved plan needs no -auto-approve with -json: it was reviewed.
		"apply a saved plan as JSON": {ParseApply, []string{"-json", "p.tfplan"},
			Apply{Name: "apply", State: State{Lock: true}, Operation: defaultOperation(), Input: true, View: View{JSON: true}, PlanPath: "p.tfplan"}},
		"apply -destroy is destroy": {ParseApply, []string{"-destroy"},
			Apply{Name: "destroy", State: State{Lock: true}, Operation: destroyOp, Input: true}},
		"destroy defaults": {ParseDestroy, nil,
			Apply{Name: "destroy", State: State{Lock: true}, Operation: destroyOp, Input: true}},
		"destroy -target": {ParseDestroy, []string{"--target=endpoint.client", "--auto-approve"},
			Apply{Name: "destroy", State: State{Lock: true}, Input: true, AutoApprove: true,
				Operation: Operation{Targets: []addrs.Instance{client}, Destroy: true, Refresh: true, Parallelism: apply.DefaultParallelism}}},
		"refresh is apply -refresh-only -auto-approve": {ParseRefresh, []string{"-lock=false"},
			Apply{Name: "refresh", Operation: refreshOp, Input: true, AutoApprove: true, AutoApproveImplied: true}},
		"refresh -auto-approve is given, not implied": {ParseRefresh, []string{"-lock=false", "-auto-approve"},
			Apply{Name: "refresh", Operation: refreshOp, Input: true, AutoApprove: true}},
		"apply help":                      {ParseApply, []string{"-help"}, Apply{Name: "apply", Help: true}},
		"apply -destroy -help is apply's": {ParseApply, []string{"-destroy", "-help"}, Apply{Name: "apply", Help: true}},
		"destroy help":                    {ParseDestroy, []string{"-h"}, Apply{Name: "destroy", Help: true}},
		// refresh's help wherever -help is, even after an argument.
		"refresh help": {ParseRefresh, []string{"x", "--help"}, Apply{Name: "refresh", Help: true}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, diags := tc.parse(tc.args)
			if len(diags) > 0 {
				t.Fatalf("%q: unexpected diagnostics: %q", tc.args, errorsOf(diags))
			}
			sameArgs(t, tc.args, tc.want, *got, applyOp)
		})
	}
}

func TestParseApplyErrors(t *testing.T) {
	t.Parallel()
	help := func(name string) string {
		return "\n\nFor more help on using this command, run:\n  rdmaform " + name + " -help"
	}
	savedDestroy := "A saved plan cannot be applied with -destroy\n\nThe saved plan says whether it destroys: make it with \"rdmaform plan -destroy -out=FILE\",\nthen run \"rdmaform apply FILE\"."
	tests := map[string]struct {
		parse func([]string) (*Apply, Diagnostics)
		args  []string
		want  []string
	}{
		"apply unknown option": {ParseApply, []string{"-nope"},
			[]string{"Failed to parse command-line flags\n\nflag provided but not defined: -nope" + help("apply")}},
		// apply -destroy's flags are apply's, its other messages destroy's.
		// After a bad option the arguments are not counted.
		"apply -destroy unknown option": {ParseApply, []string{"-destroy", "-nope", "a", "b"},
			[]string{"Failed to parse command-line flags\n\nflag provided but not defined: -nope" + help("apply")}},
		"destroy has no -destroy": {ParseDestroy, []string{"-destroy"},
			[]string{"Failed to parse command-line flags\n\nflag provided but not defined: -destroy" + help("destroy")}},
		"refresh unknown option": {ParseRefresh, []string{"-nope", "-parallelism=x"},
			[]string{"Failed to parse command-line flags\n\nflag provided but not defined: -nope\n" +
				`invalid value "x" for flag -parallelism: "x" is not a whole number of at least 1` + help("refresh")}},
		"json and monitor": {ParseApply, []string{"-json", "-monitor", "-auto-approve"},
			[]string{"-json and -monitor cannot be used together\n\n-json prints every change as JSON; -monitor draws the live table in the terminal."}},
		// The bad -parallelism took the plan file as its value: the plan
		// file is not asked for.
		"json with a bad option": {ParseApply, []string{"-json", "-parallelism", "p.tfplan"},
			[]string{"Failed to parse command-line flags\n\n" + `invalid value "p.tfplan" for flag -parallelism: "p.tfplan" is not a whole number of at least 1` + help("apply")}},
		"json without approval": {ParseApply, []string{"-json"},
			[]string{"Plan file or auto-approve required\n\nrdmaform cannot ask for interactive approval when -json is set. You can either\napply a saved plan file, or enable the -auto-approve option."}},
		"two plans": {ParseApply, []string{"a", "b"},
			[]string{"apply takes at most one argument, a saved plan\n\n"}},
		// Flags end at the first argument: say so when they follow it.
		"options after the plan": {ParseApply, []string{"p.tfplan", "-auto-approve", "-no-color"},
			[]string{"apply takes at most one argument, a saved plan\n\nOptions go before the plan file, as flags end at the first argument: rdmaform apply -auto-approve -no-color p.tfplan"}},
		"destroy a saved plan":        {ParseDestroy, []string{"p.tfplan"}, []string{savedDestroy}},
		"apply -destroy a saved plan": {ParseApply, []string{"-destroy", "p.tfplan"}, []string{savedDestroy}},
		"refresh a saved plan": {ParseRefresh, []string{"p.tfplan"},
			[]string{"A saved plan cannot be applied with -refresh-only\n\nThe saved plan says what it changes: make it with \"rdmaform plan -refresh-only -out=FILE\",\nthen run \"rdmaform apply FILE\"."}},
		"variables with a saved plan": {ParseApply, []string{"-var=a=1", "p.tfplan"},
			[]string{"Can't set variables, -target or -replace when applying a saved plan\n\nThe saved plan already records them."}},
		"target with a saved plan": {ParseApply, []string{"-target=endpoint.client", "p.tfplan"},
			[]string{"Can't set variables, -target or -replace when applying a saved plan\n\nThe saved plan already records them."}},
		// Every problem at once.
		"several": {ParseApply, []string{"-json", "-monitor", "-target=nope", "-refresh-only", "-refresh=false", "a", "b"},
			[]string{"-json and -monitor cannot be used together\n\n-json prints every change as JSON; -monitor draws the live table in the terminal.",
				"Incompatible refresh options\n\nIt doesn't make sense to use -refresh-only at the same time as -refresh=false,\nbecause rdmaform would have nothing to do.",
				"Invalid -target address\n\n" + addrError(t, "nope"),
				"apply takes at most one argument, a saved plan\n\n"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, diags := tc.parse(tc.args)
			if !diags.HasErrors() || got.Help {
				t.Fatalf("%q: no error", tc.args)
			}
			sameErrors(t, tc.args, tc.want, diags)
		})
	}
}
