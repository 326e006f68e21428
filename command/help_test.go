package command

import (
	"bytes"
	"strings"
	"testing"
)

func runCLI(args ...string) (code int, out, errs string) {
	var o, e bytes.Buffer
	code = run(args, Meta{In: strings.NewReader(""), Out: &o, Err: &e})
	return code, o.String(), e.String()
}

// "rdmaform help COMMAND" prints what "rdmaform COMMAND -help" prints and
// exits 0, as Terraform's help does; subcommands too.
func TestHelpCommandIsTheCommandsHelp(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"plan", "apply", "version", "agent", "agent stop", "state list", "workspace new"} {
		code, out, errs := runCLI(append([]string{"help"}, strings.Fields(cmd)...)...)
		wantCode, wantOut, wantErrs := runCLI(append(strings.Fields(cmd), "-help")...)
		if code != 0 || wantCode != 0 || out != wantOut || errs != wantErrs || !strings.HasPrefix(out+errs, "Usage: rdmaform") {
			t.Errorf("rdmaform help %s: exit %d\n%s%s\nwant exit 0 and rdmaform %s -help's\n%s%s", cmd, code, out, errs, cmd, wantOut, wantErrs)
		}
	}
}

// "rdmaform help" alone is the global help on standard output.
func TestHelpAloneIsTheGlobalHelp(t *testing.T) {
	t.Parallel()
	code, out, errs := runCLI("help")
	_, want, _ := runCLI("-help")
	if code != 0 || out != want || errs != "" || !strings.Contains(out, "  plan ") {
		t.Errorf("rdmaform help: exit %d\n%s%s\nwant exit 0 and\n%s", code, out, errs, want)
	}
}

func TestHelpOfAnUnknownCommand(t *testing.T) {
	t.Parallel()
	code, _, errs := runCLI("help", "paln")
	if code != 1 || !strings.Contains(errs, `rdmaform has no command named "paln". Did you mean "plan"?`) {
		t.Errorf("rdmaform help paln: exit %d\n%s", code, errs)
	}
	code, _, errs = runCLI("help", "plan", "now")
	if code != 1 || !strings.Contains(errs, "rdmaform plan has no subcommands.") {
		t.Errorf("rdmaform help plan now: exit %d\n%s", code, errs)
	}
	code, _, errs = runCLI("help", "state", "lst")
	if code != 1 || !strings.Contains(errs, `rdmaform state has no subcommand "lst".`) {
		t.Errorf("rdmaform help state lst: exit %d\n%s", code, errs)
	}
}
