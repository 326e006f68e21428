package command

import (
	"fmt"
	"io"

	"github.com/rdmaform/rdmaform/command/arguments"
)

// writeArgDiags writes the problems of a command line (see package
// arguments) as the commands have always worded them; help follows those
// that want it.
func writeArgDiags(w io.Writer, diags arguments.Diagnostics, help string) {
	for _, d := range diags {
		switch {
		case d.Detail == "":
			fmt.Fprintf(w, "Error: %s\n", d.Summary)
		default:
			fmt.Fprintf(w, "Error: %s\n\n%s\n", d.Summary, d.Detail)
		}
		if arguments.HelpAfter(d) {
			fmt.Fprint(w, "\n"+help)
		}
	}
}
