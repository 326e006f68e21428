package command

import (
	"bytes"
	"regexp"
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
		"workspace": {"workspace list", "workspace show", "workspace new", "workspace select", "workspace delete"},
		"metadata":  {"metadata functions"}}
	var out []string
	for _, name := range names {
		out = append(out, append([]string{name}, variants[name]...)[min(1, len(variants[name])):]...)
	}
	return out
}

func TestEveryCommandAcceptsNoColor(t *testing.T) {
	t.Parallel()
	for _, cmd := range everyCommand() {
		var out, errs bytes.Buffer
		args := append(strings.Fields(cmd), "-no-color", "-help")
		run(args, Meta{In: strings.NewReader(""), Out: &out, Err: &errs})
		if strings.Contains(errs.String(), "flag provided but not defined") {
			t.Errorf("rdmaform %s -no-color: %s", cmd, strings.SplitN(errs.String(), "\n", 2)[0])
		}
	}
}

// A bad option is named with a pointer to the help, as Terraform does,
// rather than followed by the whole help; -help still prints it all.
func TestBadOptionPointsAtTheHelp(t *testing.T) {
	t.Parallel()
	for _, cmd := range everyCommand() {
		var out, errs bytes.Buffer
		code := run(append(strings.Fields(cmd), "-no-such-option"), Meta{In: strings.NewReader(""), Out: &out, Err: &errs})
		want := "Error: Failed to parse command-line flags\n\nflag provided but not defined: -no-such-option\n\nFor more help on using this command, run:\n  rdmaform " + cmd + " -help\n"
		if code != 1 || errs.String() != want {
			t.Errorf("rdmaform %s -no-such-option: exit %d\n%s\nwant exit 1\n%s", cmd, code, errs.String(), want)
		}
		errs.Reset()
		if code := run(append(strings.Fields(cmd), "-help"), Meta{In: strings.NewReader(""), Out: &out, Err: &errs}); code != 0 || !strings.Contains(errs.String(), "Usage: rdmaform") {
			t.Errorf("rdmaform %s -help: exit %d\n%s", cmd, code, errs.String())
		}
	}
}

// Every command's -help says what the command does, in a paragraph after
// the usage lines, and lists its options aligned with their values spelled
// (-lock-timeout=DUR), not in the flag package's raw form; every option in
// its Options section is one the command accepts.
// rdmaform -help COMMAND is the command's help, as Terraform's.
func TestGlobalHelpOfACommand(t *testing.T) {
	t.Parallel()
	var out, errs bytes.Buffer
	code := run([]string{"-help", "plan"}, Meta{In: strings.NewReader(""), Out: &out, Err: &errs})
	if help := out.String() + errs.String(); code != 0 || !strings.HasPrefix(help, "Usage: rdmaform [global options] plan") {
		t.Errorf("rdmaform -help plan: %d\n%s", code, help)
	}
}

func TestEveryCommandHelpDescribesIt(t *testing.T) {
	t.Parallel()
	option := regexp.MustCompile(`^  (-[a-z-]+)`)
	for _, cmd := range everyCommand() {
		var out, errs bytes.Buffer
		run(append(strings.Fields(cmd), "-help"), Meta{In: strings.NewReader(""), Out: &out, Err: &errs})
		help := out.String() + errs.String()
		if !strings.HasPrefix(help, "Usage: rdmaform") {
			t.Errorf("rdmaform %s -help does not start with its usage:\n%s", cmd, help)
			continue
		}
		_, rest, _ := strings.Cut(help, "\n\n")
		if !strings.HasPrefix(rest, "  ") || strings.HasPrefix(rest, "  -") {
			t.Errorf("rdmaform %s -help has no paragraph after its usage:\n%s", cmd, help)
		}
		if strings.Contains(help, "\n    \t") {
			t.Errorf("rdmaform %s -help lists options in the flag package's raw form:\n%s", cmd, help)
		}
		_, options, _ := strings.Cut(help, "\nOptions:\n")
		for _, l := range strings.Split(options, "\n") {
			m := option.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			// A value the option refuses is reported as such; an option
			// the command lacks, as not defined.
			var out, errs bytes.Buffer
			run(append(strings.Fields(cmd), m[1]+"=x", "-help"), Meta{In: strings.NewReader(""), Out: &out, Err: &errs})
			if strings.Contains(errs.String(), "flag provided but not defined") {
				t.Errorf("rdmaform %s -help lists %s, which the command does not accept", cmd, m[1])
			}
		}
	}
}
