package views

import (
	"fmt"
	"io"
	"strings"
)

// View is the human output: the standard streams and whether colour is
// on (off with -no-color, on a file or a pipe, and with -json).
type View struct {
	Out, Err io.Writer
	Color    bool
}

// Diagnostic prints one error or warning as Terraform's human UI does:
// "Error: summary", a blank line and the detail, on the error stream.
func (v *View) Diagnostic(severity Severity, summary, detail string) {
	prefix := "Error: "
	if severity == Warning {
		prefix = "Warning: "
	}
	msg := prefix + summary + "\n"
	if detail != "" {
		msg += "\n" + strings.TrimRight(detail, "\n") + "\n"
	}
	fmt.Fprint(v.Err, msg)
}

// Severity is a diagnostic's: an error or a warning.
type Severity string

const (
	Error   Severity = "error"
	Warning Severity = "warning"
)
