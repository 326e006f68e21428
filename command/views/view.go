package views

import (
	"io"

	"github.com/rdmaform/rdmaform/tui/colorize"
)

// View is the human output: the standard streams, -no-color, and how to
// tell a terminal (colour is only for one).
type View struct {
	Out, Err io.Writer
	NoColor  bool
	Terminal func(io.Writer) bool
	// Width is where the configuration's diagnostics wrap their details
	// (0: they do not).
	Width uint
}

// Colorize is whether text written on w is coloured: not with -no-color,
// and only on a terminal.
func (v *View) Colorize(w io.Writer) colorize.Colorize {
	return colorize.Colorize(!v.NoColor && v.Terminal != nil && v.Terminal(w))
}

// Severity is a diagnostic's: an error or a warning.
type Severity string

const (
	Error   Severity = "error"
	Warning Severity = "warning"
)
