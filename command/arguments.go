package command

import (
	"fmt"
	"io"
	"strings"

	"github.com/rdmaform/rdmaform/command/arguments"
)

// writeArgDiags writes the problems of a command line (see package
// arguments) as the commands have always worded them.
func writeArgDiags(w io.Writer, diags arguments.Diagnostics) {
	for _, d := range diags {
		if d.Detail == "" {
			fmt.Fprintf(w, "Error: %s\n", d.Summary)
			continue
		}
		fmt.Fprintf(w, "Error: %s\n\n%s\n", d.Summary, d.Detail)
	}
}

// inputDefault is -input's default (RDMAFORM_INPUT).
func inputDefault() bool { return arguments.InputDefault() }

// stringsFlag is a repeatable string option.
type stringsFlag []string

func (s *stringsFlag) String() string     { return strings.Join(*s, ",") }
func (s *stringsFlag) Set(v string) error { *s = append(*s, v); return nil }
