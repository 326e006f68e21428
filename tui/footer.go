package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/help"
)

// footerPane shows the key help, or the filter being typed.
type footerPane struct {
	st   *styles
	keys *keyMap
	help help.Model

	width     int
	filtering bool   // the user is typing a filter
	input     string // the filter being typed
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
func (f *footerPane) View() string {
	if f.filtering {
		line := "/" + f.input + "█" + f.st.dim.Render("  enter keep · esc clear · matches address, status, device or last event")
		return fit(line, f.width)
	}
	lines := strings.Split(f.help.View(f.keys), "\n")
	for i, l := range lines {
		lines[i] = fit(l, f.width)
	}
	return strings.Join(lines, "\n")
}
