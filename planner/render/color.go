package render

import "github.com/rdmaform/rdmaform/tui/colorize"

// colorizer wraps text in ANSI styles, or leaves it alone when colour is
// off (-no-color, or not a terminal), through the one colour helper.
type colorizer bool

const (
	bold   = colorize.Bold
	green  = colorize.Green
	yellow = colorize.Yellow
	red    = colorize.Red
)

func (c colorizer) style(s string, styles ...colorize.Style) string {
	return colorize.Colorize(c).Style(s, styles...)
}

// symbol colours an action marker as Terraform does: green additions,
// yellow updates, red deletions, each half of a replacement marker in its
// own colour.
func (c colorizer) symbol(sym string) string {
	switch sym {
	case "+":
		return c.style(sym, green)
	case "~":
		return c.style(sym, yellow)
	case "-":
		return c.style(sym, red)
	case "-/+":
		return c.style("-", red) + "/" + c.style("+", green)
	case "+/-":
		return c.style("+", green) + "/" + c.style("-", red)
	}
	return sym
}
