package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/x/ansi"
)

// footerPane shows the key help, or the filter being typed.
type footerPane struct {
	st   *styles
	keys *keyMap
	help help.Model

	width     int
	filtering bool   // the user is typing a filter
	input     string // the filter being typed
	// prompt asks to confirm an action (y/n); while it is set, the
	// footer shows it and other keys cancel it.
	prompt string
	// flash is an action's outcome, shown until the next key.
	flash string
}

func newFooterPane(st *styles, keys *keyMap) *footerPane {
	h := help.New()
	h.Styles = st.help
	return &footerPane{st: st, keys: keys, help: h}
}

func (f *footerPane) setSize(width int) {
	f.width = width
	f.help.Width = width
}

func (f *footerPane) toggleFullHelp() { f.help.ShowAll = !f.help.ShowAll }

// View renders one line, or the full help's several.
// height is the number of lines View draws: one, but for the full help.
func (f *footerPane) height() int {
	if f.help.ShowAll && !f.filtering && f.prompt == "" {
		return strings.Count(f.View(), "\n") + 1
	}
	return 1
}

func (f *footerPane) View() string {
	if f.filtering {
		line := "/" + f.input + "█" + f.st.dim.Render("  enter keep · esc clear · matches address, status, device or last event")
		return fit(line, f.width)
	}
	if f.prompt != "" {
		return fit(f.st.bold.Render(f.prompt)+f.st.dim.Render("  y confirm · any other key cancels"), f.width)
	}
	if f.flash != "" && !f.help.ShowAll {
		return fit(f.flash, f.width)
	}
	var view string
	if f.help.ShowAll {
		view = f.help.View(f.keys)
	} else {
		view = f.shortHelp()
	}
	lines := strings.Split(view, "\n")
	for i, l := range lines {
		lines[i] = fit(l, f.width)
	}
	return strings.Join(lines, "\n")
}

// shortHelp is the one-line help, leaving out the keys before "? help" and
// "q quit", last first, until it fits: those two stay.
func (f *footerPane) shortHelp() string {
	keys := f.keys.ShortHelp()
	h := f.help
	h.Width = 0 // measure untruncated
	view := h.ShortHelpView(keys)
	for f.width > 0 && ansi.StringWidth(view) > f.width && len(keys) > 2 {
		keys = append(keys[:len(keys)-3], keys[len(keys)-2:]...)
		view = h.ShortHelpView(keys)
	}
	return view
}
