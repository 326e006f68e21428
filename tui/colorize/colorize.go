// Package colorize is the one place rdmaform's text output gets its ANSI
// styles (the plan, apply's closing lines, validate's "Success!"): every
// caller passes whether colour is on, which -no-color, -json and output
// that is no terminal turn off, so no raw escape code is written
// elsewhere. (The monitor styles through lipgloss instead.)
package colorize

import "strings"

// Style is an ANSI style.
type Style string

const (
	Bold   Style = "\x1b[1m"
	Green  Style = "\x1b[32m"
	Yellow Style = "\x1b[33m"
	Red    Style = "\x1b[31m"
	reset        = "\x1b[0m"
)

// Colorize is whether colour is on.
type Colorize bool

// Style wraps s in the styles, in their order, when colour is on, and
// leaves it alone otherwise (and when it is empty).
func (c Colorize) Style(s string, styles ...Style) string {
	if !c || s == "" {
		return s
	}
	var b strings.Builder
	for _, st := range styles {
		b.WriteString(string(st))
	}
	b.WriteString(s)
	b.WriteString(reset)
	return b.String()
}
