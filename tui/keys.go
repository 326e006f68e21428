package tui

import "github.com/charmbracelet/bubbles/key"

// keyMap is every key the monitor answers to; the footer's help is made
// from it, so the help cannot drift from the behaviour.
type keyMap struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	Fold, Filter, Sort, Unhealthy, Peer     key.Binding
	Describe, Taint, Reconnect, GroupHosts  key.Binding
	Detail, Focus, Back                     key.Binding
	Help, Quit                              key.Binding
}

func newKeyMap() keyMap {
	return keyMap{
		Up:        key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:      key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:    key.NewBinding(key.WithKeys("pgup", "ctrl+b"), key.WithHelp("pgup", "page up")),
		PageDown:  key.NewBinding(key.WithKeys("pgdown", "ctrl+f"), key.WithHelp("pgdn", "page down")),
		Top:       key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g/home", "first")),
		Bottom:    key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G/end", "last")),
		Fold:      key.NewBinding(key.WithKeys(" "), key.WithHelp("space", "fold listener")),
		Filter:    key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		Sort:      key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "sort")),
		Unhealthy: key.NewBinding(key.WithKeys("!"), key.WithHelp("!", "unhealthy only")),
		Peer:      key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "peer")),
		Describe:  key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "describe")),
		Taint:     key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "taint")),
		Reconnect: key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "reconnect now")),
		// Only a fabric has hosts to group (see New).
		GroupHosts: key.NewBinding(key.WithKeys("h"), key.WithHelp("h", "group by host"), key.WithDisabled()),
		Detail:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "detail")),
		Focus:      key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "focus")),
		Back:       key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close/clear")),
		Help:       key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:       key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
}

// ShortHelp is the footer's one line.
func (k keyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Unhealthy, k.Up, k.Down, k.Filter, k.Sort, k.Detail, k.Describe, k.Peer, k.GroupHosts, k.Focus, k.Help, k.Quit}
}

// FullHelp is what `?` shows, one column per group.
func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.Unhealthy, k.Filter, k.Sort, k.Fold},
		{k.Detail, k.Describe, k.Peer, k.Focus, k.Back},
		{k.Taint, k.Reconnect, k.GroupHosts},
		{k.Help, k.Quit},
	}
}
