package arguments

import (
	"reflect"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/config/addrs"
)

func TestParseStateWorkspaceInit(t *testing.T) {
	t.Parallel()
	client, block := mustAddr(t, "endpoint.client[0]"), mustAddr(t, "endpoint.client")
	state := func(sub string) func([]string) (any, Diagnostics) {
		return wrap(func(a []string) (*StateCommand, Diagnostics) { return ParseState(sub, a) })
	}
	workspace := func(sub string) func([]string) (any, Diagnostics) {
		return wrap(func(a []string) (*Workspace, Diagnostics) { return ParseWorkspace(sub, a) })
	}
	tests := []struct {
		name string
		args []string
		got  func([]string) (any, Diagnostics)
		want any
	}{
		{"state list", nil, state("list"), StateCommand{Sub: "list"}},
		{"state list patterns", []string{"-id=x", "endpoint.client", "endpoint.client[0]"}, state("list"),
			StateCommand{Sub: "list", ID: "x", Addrs: []addrs.Instance{block, client}}},
		{"state show", []string{"-no-color", "endpoint.client[0]"}, state("show"), StateCommand{Sub: "show", Addrs: []addrs.Instance{client}}},
		{"state rm", []string{"-dry-run", "-lock=false", "endpoint.client"}, state("rm"), StateCommand{Sub: "rm", DryRun: true, Addrs: []addrs.Instance{block}}},
		{"state mv", []string{"-lock-timeout=3s", "endpoint.client[0]", "endpoint.client"}, state("mv"),
			StateCommand{Sub: "mv", State: State{Lock: true, LockTimeout: 3 * time.Second}, Addrs: []addrs.Instance{client, block}}},
		{"state pull", nil, state("pull"), StateCommand{Sub: "pull"}},
		{"state push", []string{"-force", "-"}, state("push"), StateCommand{Sub: "push", State: State{Lock: true}, Force: true, Path: "-"}},
		{"state rm help", []string{"-help"}, state("rm"), StateCommand{Sub: "rm", Help: true}},
		{"workspace list", []string{"-no-color"}, workspace("list"), Workspace{Sub: "list"}},
		{"workspace new", []string{"-lock=false", "dev"}, workspace("new"), Workspace{Sub: "new", Name: "dev"}},
		{"workspace select", []string{"-or-create", "dev"}, workspace("select"), Workspace{Sub: "select", Name: "dev", OrCreate: true}},
		{"workspace delete", []string{"-force", "dev"}, workspace("delete"), Workspace{Sub: "delete", Name: "dev", Force: true, State: State{Lock: true}}},
		{"init defaults", nil, wrap(ParseInit), Init{State: State{Lock: true}, Backend: true}},
		{"init everything", []string{"-migrate-state", "-force-copy", "-backend-config=a=1", "-backend-config", "b.hcl",
			"-input=false", "-upgrade", "-no-color", "-lock-timeout=1s"}, wrap(ParseInit),
			Init{State: State{Lock: true, LockTimeout: time.Second}, MigrateState: true, ForceCopy: true, Backend: true, BackendConfig: []string{"a=1", "b.hcl"}}},
		{"init without backend", []string{"-backend=false", "-reconfigure"}, wrap(ParseInit), Init{State: State{Lock: true}, Reconfigure: true}},
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

func TestParseStateWorkspaceInitErrors(t *testing.T) {
	t.Parallel()
	state := func(sub string) func([]string) (any, Diagnostics) {
		return wrap(func(a []string) (*StateCommand, Diagnostics) { return ParseState(sub, a) })
	}
	workspace := func(sub string) func([]string) (any, Diagnostics) {
		return wrap(func(a []string) (*Workspace, Diagnostics) { return ParseWorkspace(sub, a) })
	}
	pointer := "\n\nFor more help on using this command, run:\n  rdmaform state mv -help"
	tests := []struct {
		name  string
		args  []string
		parse func([]string) (any, Diagnostics)
		want  []string
	}{
		{"state show none", nil, state("show"), []string{"Exactly one argument expected\n\nUsage: rdmaform state show ADDRESS"}},
		{"state rm none", nil, state("rm"), []string{"At least one address is required.\n\nUsage: rdmaform state rm [options] ADDRESS..."}},
		{"state mv one", []string{"endpoint.a"}, state("mv"), []string{"Exactly two arguments expected.\n\nUsage: rdmaform state mv [options] SOURCE DESTINATION"}},
		{"state push none", nil, state("push"), []string{`Exactly one argument expected: the state file to push ("-" for stdin).` + "\n\n"}},
		// Every bad address.
		{"state rm bad addresses", []string{"nope", "endpoint.ok", "endpoint"}, state("rm"),
			[]string{"Invalid address\n\n" + addrError(t, "nope"), "Invalid address\n\n" + addrError(t, "endpoint")}},
		{"state mv bad option", []string{"-force", "a", "b"}, state("mv"),
			[]string{"Failed to parse command-line flags\n\nflag provided but not defined: -force" + pointer}},
		{"state pull has no -lock", []string{"-lock=false"}, state("pull"),
			[]string{"Failed to parse command-line flags\n\nflag provided but not defined: -lock\n\nFor more help on using this command, run:\n  rdmaform state pull -help"}},
		{"workspace show argument", []string{"x"}, workspace("show"), []string{`workspace show takes no arguments, got ["x"]` + "\n\n"}},
		{"workspace select none", nil, workspace("select"), []string{"Expected a single argument: NAME\n\nUsage: rdmaform workspace select [-or-create] NAME"}},
		{"workspace delete two", []string{"a", "b"}, workspace("delete"), []string{"Expected a single argument: NAME\n\nUsage: rdmaform workspace delete [-force] NAME"}},
		{"workspace select has no -force", []string{"-force", "a"}, workspace("select"),
			[]string{"Failed to parse command-line flags\n\nflag provided but not defined: -force\n\nFor more help on using this command, run:\n  rdmaform workspace select -help"}},
		{"init argument", []string{"dir"}, wrap(ParseInit), []string{"init takes no arguments; use -chdir=DIR to initialise another directory\n\n"}},
		{"init migrate and reconfigure", []string{"-migrate-state", "-reconfigure", "dir"}, wrap(ParseInit), []string{
			"init takes no arguments; use -chdir=DIR to initialise another directory\n\n",
			"-migrate-state and -reconfigure are mutually exclusive\n\n"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := tc.parse(tc.args)
			if !diags.HasErrors() {
				t.Fatalf("%q: no error", tc.args)
			}
			sameErrors(t, tc.args, tc.want, diags)
		})
	}
}
