package tui

import tea "github.com/charmbracelet/bubbletea"

// askReconnect asks to make the selected object's connection again at
// once (`r`), as an operator does when a link looks stuck: an endpoint
// disconnects, if connected, and connects again, its back-off reset; an
// accepted connection is ended, for its client to make again. What
// cannot be reconnected is said at once, without asking.
func (m *Model) askReconnect() {
	o := m.table.selectedObject()
	if o == nil {
		return
	}
	addr := o.Address
	switch {
	case m.reconn == nil:
		m.footer.flash = "reconnect needs an agent: this view has none to ask"
		return
	case o.Status == StatusMissing:
		m.footer.flash = addr + " is not held by its agent: there is nothing to reconnect (apply makes it)"
		return
	case m.rowStale(o):
		m.footer.flash = "the agent that holds " + addr + " does not answer: nothing can be asked of it until it does"
		return
	case o.Kind == KindListener:
		m.footer.flash = "a listener has no connection of its own: reconnect one of its connections, or the endpoint at the other end"
		return
	case o.Kind != KindEndpoint && o.Kind != KindConnection:
		m.footer.flash = addr + " has no connection to reconnect"
		return
	case o.Kind == KindConnection:
		m.footer.prompt = "disconnect " + addr + "? Its client connects again by its reconnect policy."
	default:
		m.footer.prompt = "reconnect " + addr + " now? Its connection drops and it connects again at once."
	}
	host, reconnect := o.Host, m.reconn
	m.confirm = func() tea.Msg {
		done, err := reconnect(host, addr)
		if err != nil {
			return actionDoneMsg("reconnect " + addr + " failed: " + err.Error())
		}
		return actionDoneMsg(done)
	}
}

// rowStale reports whether o is of the last picture of an agent that
// does not answer.
func (m *Model) rowStale(o *Object) bool {
	if o.Host != "" {
		return m.world.hostDown(o.Host)
	}
	return m.world.stale()
}
