package tui

import (
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// focusable panes.
type focus int

const (
	focusTable focus = iota
	focusDetail
)

// tickMsg refreshes the clocks on screen (uptimes, ages, the retry count
// down) once a second.
type tickMsg time.Time

func tick() tea.Cmd {
	return tea.Tick(time.Second, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// Model is the monitor's root model. It owns the layout, the focus and the
// world the panes read; the relay feeds it.
type Model struct {
	world *world
	relay *relay
	// hostRelays are a fabric's, one per host (see hosts.go).
	hostRelays map[string]*relay
	keys       keyMap

	header *headerPane
	table  *tablePane
	detail *detailPane
	footer *footerPane

	width, height int
	showDetail    bool
	// describing shows the selected object's detail, its events and its
	// last errors on the whole screen (`d`), as k9s's describe.
	describing bool
	focus      focus
	notices    <-chan string // see Options.Notice

	declare   func() ([]Declared, error) // Options.Declared
	declaring bool                       // a read of the declared objects is under way
	ticks     int
	taint     func(address string) error                 // Options.Taint
	reconn    func(host, address string) (string, error) // Options.Reconnect
	// confirm is the action the footer's prompt asks about; y runs it.
	confirm tea.Cmd
}

// declaredEvery is how often the declared objects are read again, in
// clock ticks (seconds): an apply elsewhere changes them.
const declaredEvery = 10

// declaredMsg brings the declared objects, read off the program's loop.
type declaredMsg struct {
	list []Declared
	err  error
}

// actionDoneMsg is an action's outcome for the footer.
type actionDoneMsg string

// readDeclared reads the declared objects in the background, one read
// at a time.
func (m *Model) readDeclared() tea.Cmd {
	if m.declare == nil || m.declaring {
		return nil
	}
	m.declaring = true
	read := m.declare
	return func() tea.Msg {
		list, err := read()
		return declaredMsg{list: list, err: err}
	}
}

// noticeMsg is a line for the header (Options.Notice).
type noticeMsg string

// awaitNotice waits for the notice, if any is to come.
func (m *Model) awaitNotice() tea.Cmd {
	if m.notices == nil {
		return nil
	}
	ch := m.notices
	return func() tea.Msg {
		s, ok := <-ch
		if !ok {
			return nil
		}
		return noticeMsg(s)
	}
}

var _ tea.Model = (*Model)(nil)

// Init starts the relay and the clock.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(m.startRelays(), tick(), m.awaitNotice(), m.readDeclared())
}

// Close stops the relay and waits for it. Call it once the program has
// ended.
func (m *Model) Close() { m.stopRelays() }

// Update handles one message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case feedMsg:
		m.world.apply(msg)
		m.table.refresh()
		cmd = m.relayOf(msg.host).next // re-arm: the relay has one delivery in flight at most
	case tickMsg:
		cmd = tick()
		if m.ticks++; m.ticks%declaredEvery == 0 {
			cmd = tea.Batch(cmd, m.readDeclared())
		}
	case declaredMsg:
		m.declaring = false
		m.header.declaredErr = msg.err
		if msg.err == nil {
			m.world.setDeclared(msg.list)
			m.table.refresh()
		}
	case actionDoneMsg:
		m.footer.flash = string(msg)
		cmd = m.readDeclared() // a taint shows in the detail
	case noticeMsg:
		m.header.notice = string(msg)
	case tea.KeyMsg:
		cmd = m.handleKey(msg)
	}
	if (m.showDetail || m.describing) && m.table.selectedObject() == nil {
		// No row is shown (a filter matches nothing): the selection the
		// table keeps for when rows come back is not on screen, so there
		// is nothing to detail.
		m.showDetail, m.describing = false, false
		m.setFocus(focusTable)
	}
	m.detail.show(m.table.selected)
	m.detail.describing = m.describing
	m.layout()
	return m, cmd
}

func (m *Model) handleKey(k tea.KeyMsg) tea.Cmd {
	if m.footer.filtering {
		return m.handleFilterKey(k)
	}
	m.footer.flash = ""
	if m.footer.prompt != "" {
		run := m.confirm
		m.footer.prompt, m.confirm = "", nil
		if k.Type == tea.KeyRunes && string(k.Runes) == "y" {
			return run
		}
		m.footer.flash = "cancelled: nothing changed"
		return nil
	}
	// Keys typed faster than the program reads arrive as one message
	// ("jjj"); each is a command of its own here.
	if k.Type == tea.KeyRunes && len(k.Runes) > 1 {
		var cmds []tea.Cmd
		for _, r := range k.Runes {
			cmds = append(cmds, m.handleKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: k.Alt}))
		}
		return tea.Batch(cmds...)
	}
	switch {
	case key.Matches(k, m.keys.Quit):
		return tea.Quit
	case key.Matches(k, m.keys.Help):
		m.footer.toggleFullHelp()
	case key.Matches(k, m.keys.Filter):
		m.footer.filtering, m.footer.input = true, m.table.filter
	case key.Matches(k, m.keys.Sort):
		m.table.setSort(m.table.sort.next())
	case key.Matches(k, m.keys.Unhealthy):
		m.table.toggleUnhealthy()
	case key.Matches(k, m.keys.GroupHosts):
		m.table.toggleGrouping()
	case key.Matches(k, m.keys.Peer):
		m.jumpToPeer()
	case key.Matches(k, m.keys.Describe):
		m.describing = !m.describing && m.table.selectedObject() != nil
		if m.describing {
			m.setFocus(focusDetail)
		} else {
			m.setFocus(focusTable)
		}
	case key.Matches(k, m.keys.Taint):
		m.askTaint()
	case key.Matches(k, m.keys.Reconnect):
		m.askReconnect()
	case key.Matches(k, m.keys.Detail):
		m.showDetail = !m.showDetail
		if !m.showDetail {
			m.setFocus(focusTable)
		}
	case key.Matches(k, m.keys.Focus):
		if m.describing {
			break // the describe view is all there is to focus
		}
		if m.showDetail && m.focus == focusTable {
			m.setFocus(focusDetail)
		} else {
			m.setFocus(focusTable)
		}
	case key.Matches(k, m.keys.Back):
		switch {
		case m.footer.help.ShowAll:
			m.footer.toggleFullHelp()
		case m.describing:
			m.describing = false
			m.setFocus(focusTable)
		case m.focus == focusDetail || m.showDetail:
			m.showDetail = false
			m.setFocus(focusTable)
		case m.table.filter != "":
			m.table.setFilter("")
		}
	case m.focus == focusDetail:
		return m.detail.Update(k)
	default:
		return m.table.Update(k)
	}
	return nil
}

// jumpToPeer selects the other end of the selected connection.
func (m *Model) jumpToPeer() {
	peer, ok := m.table.jumpToPeer()
	switch {
	case ok:
	case peer != "":
		m.footer.flash = "the peer " + peer + " is hidden by the filter"
	default:
		m.footer.flash = "no peer known for the selected object (only connections whose both ends this agent holds)"
		if m.world.fabric() {
			m.footer.flash = "no peer known for the selected object (only connections whose both ends a host watched holds)"
		}
	}
}

// askTaint asks to taint the selected object, as rdmaform taint does:
// the next plan replaces it. The command that started the monitor owns
// the state (Options.Taint).
func (m *Model) askTaint() {
	o := m.table.selectedObject()
	switch {
	case o == nil:
		return
	case m.taint == nil:
		m.footer.flash = "taint needs the state: run the monitor in the configuration's directory"
		return
	case o.Kind == KindConnection:
		m.footer.flash = "an accepted connection is the agent's, not the state's: taint its listener, or the endpoint at the other end"
		return
	}
	addr, taint := o.Address, m.taint
	m.footer.prompt = "taint " + addr + "? The next plan replaces it."
	m.confirm = func() tea.Msg {
		if err := taint(addr); err != nil {
			return actionDoneMsg("taint " + addr + " failed: " + err.Error())
		}
		return actionDoneMsg(addr + " is tainted: the next plan replaces it")
	}
}

// handleFilterKey edits the filter; the table follows as it is typed.
func (m *Model) handleFilterKey(k tea.KeyMsg) tea.Cmd {
	f := m.footer
	switch k.Type {
	case tea.KeyCtrlC:
		return tea.Quit
	case tea.KeyEnter:
		f.filtering = false
	case tea.KeyEsc:
		f.filtering, f.input = false, ""
	case tea.KeyBackspace:
		if r := []rune(f.input); len(r) > 0 {
			f.input = string(r[:len(r)-1])
		}
	case tea.KeyRunes, tea.KeySpace:
		f.input += string(k.Runes)
	default:
		return nil
	}
	m.table.setFilter(f.input)
	return nil
}

func (m *Model) setFocus(f focus) {
	m.focus = f
	m.table.focused = f == focusTable
	m.detail.focused = f == focusDetail
}

// layout gives each pane its size: header and footer take what they need,
// the detail pane, when open, half of the rest, and the table the
// remainder.
func (m *Model) layout() {
	m.header.setSize(m.width)
	m.footer.setSize(m.width)
	body := max(m.height-m.header.height()-m.footer.height(), 0)
	detail := 0
	switch {
	case m.describing:
		detail = body
	case m.showDetail:
		detail = body / 2
	}
	m.table.setSize(m.width, body-detail)
	m.detail.setSize(m.width, detail)
}

// View renders the screen top to bottom.
func (m *Model) View() string {
	if m.width == 0 {
		return "" // no size yet
	}
	parts := []string{m.header.View()}
	if v := m.table.View(); v != "" && !m.describing {
		parts = append(parts, v)
	}
	if m.showDetail || m.describing {
		if v := m.detail.View(); v != "" {
			parts = append(parts, v)
		}
	}
	parts = append(parts, m.footer.View())
	return strings.Join(parts, "\n")
}
