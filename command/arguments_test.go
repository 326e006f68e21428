package command

import (
	"bytes"
	"strings"
	"testing"
)

// Every problem of a command line is reported, not only the first, each in
// the words it always had (the arguments are not counted after a bad
// option, which may have taken one).
func TestEveryBadOptionIsReported(t *testing.T) {
	t.Parallel()
	var out, errs bytes.Buffer
	code := run([]string{"plan", "-nope", "-parallelism=0", "-refresh-only", "-destroy", "dir"}, Meta{In: strings.NewReader(""), Out: &out, Err: &errs})
	want := "Error: Failed to parse command-line flags\n\n" +
		"flag provided but not defined: -nope\n" +
		"invalid value \"0\" for flag -parallelism: \"0\" is not a whole number of at least 1\n\n" +
		"For more help on using this command, run:\n  rdmaform plan -help\n" +
		"Error: Incompatible plan options\n\nThe -destroy option cannot be used together with -refresh-only.\n"
	if code != 1 || errs.String() != want || out.Len() > 0 {
		t.Errorf("exit %d\n%s\nwant exit 1\n%s\nstdout: %q", code, errs.String(), want, out.String())
	}
}
