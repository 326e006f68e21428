package render

// colorizer wraps text in ANSI styles, or leaves it alone when colour is
// off (-no-color, or not a terminal).
type colorizer bool

const (
	bold   = "\x1b[1m"
	green  = "\x1b[32m"
	yellow = "\x1b[33m"
	red    = "\x1b[31m"
	reset  = "\x1b[0m"
)

func (c colorizer) style(s string, styles ...string) string {
	if !c || s == "" {
		return s
	}
	var prefix string
	for _, st := range styles {
		prefix += st
	}
	return prefix + s + reset
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
