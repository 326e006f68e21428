package tui

import (
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/lipgloss"
)

// styles are every style the monitor uses, made from one renderer so that
// -no-color and NO_COLOR (an ASCII profile) reach all of them. Colours are
// the 16 basic ANSI ones, which read on dark and light backgrounds alike
// and need no background query.
type styles struct {
	title      lipgloss.Style
	dim        lipgloss.Style
	bold       lipgloss.Style
	banner     lipgloss.Style // the agent is unreachable
	demo       lipgloss.Style // the data is synthetic
	colHeader  lipgloss.Style
	selected   lipgloss.Style // the selected row in the focused pane
	unfocused  lipgloss.Style // the selected row when the detail pane has focus
	section    lipgloss.Style
	errorText  lipgloss.Style
	borderLine lipgloss.Style
	problems   lipgloss.Style // the header's problem count
	status     map[string]lipgloss.Style
	// row colours a whole row by its health; healthy rows are plain.
	row  map[health]lipgloss.Style
	help help.Styles
}

func newStyles(r *lipgloss.Renderer) *styles {
	green, yellow, red, magenta, cyan, grey := lipgloss.Color("2"), lipgloss.Color("3"), lipgloss.Color("1"), lipgloss.Color("5"), lipgloss.Color("6"), lipgloss.Color("8")
	s := &styles{
		title:      r.NewStyle().Bold(true),
		dim:        r.NewStyle().Foreground(grey),
		bold:       r.NewStyle().Bold(true),
		banner:     r.NewStyle().Bold(true).Foreground(lipgloss.Color("15")).Background(red),
		demo:       r.NewStyle().Bold(true).Foreground(lipgloss.Color("0")).Background(yellow),
		colHeader:  r.NewStyle().Bold(true).Underline(true),
		selected:   r.NewStyle().Reverse(true),
		unfocused:  r.NewStyle().Underline(true),
		section:    r.NewStyle().Bold(true).Foreground(cyan),
		errorText:  r.NewStyle().Foreground(red),
		problems:   r.NewStyle().Foreground(red).Bold(true),
		borderLine: r.NewStyle().Foreground(grey),
		status: map[string]lipgloss.Style{
			StatusEstablished:  r.NewStyle().Foreground(green),
			StatusListening:    r.NewStyle().Foreground(green),
			StatusCreating:     r.NewStyle().Foreground(cyan),
			StatusConnecting:   r.NewStyle().Foreground(yellow),
			StatusReconnecting: r.NewStyle().Foreground(yellow).Bold(true),
			StatusDegraded:     r.NewStyle().Foreground(magenta).Bold(true),
			StatusDisconnected: r.NewStyle().Foreground(red),
			StatusRejected:     r.NewStyle().Foreground(red).Bold(true),
			StatusError:        r.NewStyle().Foreground(lipgloss.Color("15")).Background(red).Bold(true),
			StatusMissing:      r.NewStyle().Foreground(red).Bold(true),
		},
		row: map[health]lipgloss.Style{
			healthError:        r.NewStyle().Foreground(red).Bold(true),
			healthRejected:     r.NewStyle().Foreground(red),
			healthLostProbes:   r.NewStyle().Foreground(magenta),
			healthDisconnected: r.NewStyle().Foreground(red),
			healthReconnecting: r.NewStyle().Foreground(yellow),
			healthConnecting:   r.NewStyle().Foreground(yellow),
		},
	}
	key, desc := r.NewStyle().Bold(true), r.NewStyle().Foreground(grey)
	s.help = help.Styles{
		Ellipsis:       desc,
		ShortKey:       key,
		ShortDesc:      desc,
		ShortSeparator: desc,
		FullKey:        key,
		FullDesc:       desc,
		FullSeparator:  desc,
	}
	return s
}

// statusText renders a status, coloured when the renderer allows.
func (s *styles) statusText(status, text string) string {
	if st, ok := s.status[status]; ok {
		return st.Render(text)
	}
	return text
}
