package main

import (
	"bytes"
	"sort"
	"strings"
	"testing"
)

// Every command accepts -no-color, as Terraform's do: users pass it out of
// habit, and scripts pass it to all of them.
// everyCommand lists every command line to test, subcommands included.
func everyCommand() []string {
	var names []string
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	variants := map[string][]string{"state": {"state list", "state show", "state rm", "state mv", "state pull", "state push"}, "agent": {"agent", "agent status", "agent stop"},
		"workspace": {"workspace list", "workspace show", "workspace new", "workspace select", "workspace delete"}}
	var out []string
	for _, name := range names {
		out = append(out, append([]string{name}, variants[name]...)[min(1, len(variants[name])):]...)
	}
	return out
}

func TestEveryCommandAcceptsNoColor(t *testing.T) {
	for _, cmd := range everyCommand() {
		var out, errs bytes.Buffer
		args := append(strings.Fields(cmd), "-no-color", "-help")
		run(args, streams{In: strings.NewReader(""), Out: &out, Err: &errs})
		if strings.Contains(errs.String(), "flag provided but not defined") {
			t.Errorf("rdmaform %s -no-color: %s", cmd, strings.SplitN(errs.String(), "\n", 2)[0])
		}
	}
}

// A bad option is named with a pointer to the help, as Terraform does,
// rather than followed by the whole help; -help still prints it all.
func TestBadOptionPointsAtTheHelp(t *testing.T) {
	for _, cmd := range everyCommand() {
		var out, errs bytes.Buffer
		code := run(append(strings.Fields(cmd), "-no-such-option"), streams{In: strings.NewReader(""), Out: &out, Err: &errs})
		want := "Error: Failed to parse command-line flags\n\nflag provided but not defined: -no-such-option\n\nFor more help on using this command, run:\n  rdmaform " + cmd + " -help\n"
		if code != 1 || errs.String() != want {
			t.Errorf("rdmaform %s -no-such-option: exit %d\n%s\nwant exit 1\n%s", cmd, code, errs.String(), want)
		}
		errs.Reset()
		if code := run(append(strings.Fields(cmd), "-help"), streams{In: strings.NewReader(""), Out: &out, Err: &errs}); code != 0 || !strings.Contains(errs.String(), "Usage: rdmaform") {
			t.Errorf("rdmaform %s -help: exit %d\n%s", cmd, code, errs.String())
		}
	}
}
