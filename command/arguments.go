package command

import (
	"fmt"

	"github.com/rdmaform/rdmaform/command/arguments"
)

// argDiagnostics reports the problems of a command line (see package
// arguments) through the command's diagnostics; as text, the help follows
// those that want it (not with -json: help is text).
func (m Meta) argDiagnostics(diags arguments.Diagnostics, help string) {
	for _, d := range diags {
		m.Diagnostics(arguments.Diagnostics{d})
		if arguments.HelpAfter(d) && m.diags == nil {
			fmt.Fprint(m.Err, "\n"+help)
		}
	}
}
