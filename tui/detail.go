package tui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// detailPane shows everything known about the selected object: its live
// facts, probe statistics, last error, history and configuration. It
// scrolls when it has focus.
type detailPane struct {
	w    *world
	st   *styles
	keys *keyMap
	now  func() time.Time

	width, height int
	focused       bool
	offset        int // first content line on screen

	address string // the object shown; the root model sets it
	// describing: the pane fills the screen and lists everything the
	// monitor knows of the object, its errors too (`d`).
	describing bool
}

func newDetailPane(w *world, st *styles, keys *keyMap, now func() time.Time) *detailPane {
	return &detailPane{w: w, st: st, keys: keys, now: now}
}

func (d *detailPane) setSize(width, height int) { d.width, d.height = width, height }

// show switches to another object, back at the top of its detail.
func (d *detailPane) show(address string) {
	if address != d.address {
		d.address, d.offset = address, 0
	}
}

func (d *detailPane) Init() tea.Cmd { return nil }

// Update scrolls the detail.
func (d *detailPane) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	page := max(d.height-1, 1)
	switch {
	case key.Matches(k, d.keys.Up):
		d.offset--
	case key.Matches(k, d.keys.Down):
		d.offset++
	case key.Matches(k, d.keys.PageUp):
		d.offset -= page
	case key.Matches(k, d.keys.PageDown):
		d.offset += page
	case key.Matches(k, d.keys.Top):
		d.offset = 0
	case key.Matches(k, d.keys.Bottom):
		d.offset = len(d.lines())
	}
	d.clampOffset(len(d.lines()))
	return nil
}

func (d *detailPane) clampOffset(n int) {
	d.offset = max(min(d.offset, n-(d.height-1)), 0)
}

// View renders a rule naming the object, then as much of its detail as
// fits from the scroll offset.
func (d *detailPane) View() string {
	if d.width <= 0 || d.height <= 0 {
		return ""
	}
	o := d.w.object(d.address)
	title := "── detail "
	if o != nil {
		title = "── " + o.Address + " "
	}
	if d.describing {
		title = strings.Replace(title, "── ", "── describe ", 1) + "(esc closes) "
	} else if d.focused {
		title += "(focused; tab returns) "
	}
	rule := d.st.borderLine.Render(ansi.Truncate(title+strings.Repeat("─", d.width), d.width, ""))
	lines := d.lines()
	d.clampOffset(len(lines))
	out := make([]string, 0, d.height)
	out = append(out, rule)
	for i := d.offset; i < len(lines) && len(out) < d.height; i++ {
		out = append(out, fit(lines[i], d.width))
	}
	for len(out) < d.height {
		out = append(out, strings.Repeat(" ", d.width))
	}
	return strings.Join(out, "\n")
}

// lines is the detail's content, one string per line, unpadded.
func (d *detailPane) lines() []string {
	o := d.w.object(d.address)
	if o == nil {
		return []string{d.st.dim.Render("  nothing selected")}
	}
	now := d.w.at(d.now())
	if o.Host != "" {
		now = d.w.hostAt(o.Host, now)
	}
	var l []string
	status := shownStatus(o)
	head := "  " + shortKind(o.Kind) + " · " + d.st.statusText(status, status)
	if h := healthOf(o); h != healthOK && h.String() != status {
		head += " · " + h.String()
	}
	if o.Host != "" {
		head += " · host " + o.Host
	}
	l = append(l, head)
	// What is declared is worth a section when it is news: the object is
	// missing, tainted, or only one of the configuration and the state
	// has it; describe says it always.
	if decl := d.w.declared[o.Address]; d.describing && len(d.w.declared) > 0 || o.Status == StatusMissing || decl != nil && (decl.Tainted || !decl.InConfig || !decl.InState) {
		l = append(l, d.declaredLines(o, decl)...)
	}
	if d.w.kept {
		l = append(l, d.st.dim.Render("  the last picture of the agent, of "+d.w.lastUpdate.Format("15:04:05")+": it went away"))
	} else if h := d.w.hosts[o.Host]; o.hostDown && h != nil && h.synced {
		l = append(l, d.st.dim.Render("  the last picture of "+o.Host+", of "+h.lastUpdate.Format("15:04:05")+": it does not answer"))
	}

	l = append(l, d.section("Live"))
	if o.Parent != "" {
		l = append(l, fact("listener", o.Parent))
	}
	if o.Kind == KindListener {
		l = append(l, fact("accepted", strconv.Itoa(d.acceptedCount(o.Address))+" connections"))
	}
	if o.LocalAddr != "" {
		l = append(l, fact("local", o.LocalAddr))
	}
	if o.RemoteAddr != "" {
		l = append(l, fact("remote", o.RemoteAddr))
	}
	if o.QPNum != 0 || o.QPType != "" {
		l = append(l, fact("qp", qpCell(row{obj: o}, now)))
	}
	switch {
	case o.Device != "" && o.Port != 0:
		l = append(l, fact("device", fmt.Sprintf("%s port %d", o.Device, o.Port)))
	case o.Device != "": // a protection domain: a device, no port
		l = append(l, fact("device", o.Device))
	}
	if o.Kernel != "" {
		l = append(l, fact("kernel", o.Kernel))
	}
	if !o.ConnectedSince.IsZero() {
		l = append(l, fact("connected", "since "+clock(o.ConnectedSince)+" (up "+span(now.Sub(o.ConnectedSince))+")"))
	}
	if o.Kind == KindEndpoint || o.Kind == KindConnection {
		l = append(l, fact("reconnects", strconv.Itoa(o.Reconnects)))
	}
	if peer := d.w.peers[o.Address]; peer != "" {
		if p := d.w.object(peer); p != nil && p.Host != o.Host {
			peer += " on " + p.Host // a link across hosts
		}
		l = append(l, fact("peer", peer+" (p goes to it)"))
	}
	if o.ReceivedPrivateData != "" {
		l = append(l, fact("peer private data", o.ReceivedPrivateData))
	}
	if o.LastEvent != "" {
		l = append(l, fact("last event", o.LastEvent+" at "+clock(o.LastEventAt)+" ("+span(now.Sub(o.LastEventAt))+" ago)"))
	}

	if p := o.Probe; p != nil {
		head := d.section("Probe")
		if p.Ended {
			head += " (the connection that ended)"
		}
		if p.Degraded {
			head += " " + d.st.statusText(StatusDegraded, "DEGRADED")
		}
		l = append(l, head,
			fact("rtt", "last "+rtt(p.Last)+" · min "+rtt(p.Min)+" · mean "+rtt(p.Mean)+" · max "+rtt(p.Max)),
			fact("probes", fmt.Sprintf("sent %d · lost %d (%s)", p.Sent, p.Lost, lossRate(p))))
	}
	if h := d.w.historyOf(o.Address); h != nil && h.n > 1 {
		width := max(min(d.width-24, historyLen), 8)
		rtts := h.samples(&h.rtt)
		top := float32(0)
		for _, v := range rtts {
			top = max(top, v)
		}
		l = append(l, fact("rtt history", sparkline(rtts, 0, width)+"  max "+rtt(time.Duration(top))),
			fact("loss history", sparkline(h.samples(&h.loss), 1, width)+"  of 100%"))
	}

	if d.describing {
		if errs := d.w.errors[o.Address]; len(errs) > 1 {
			l = append(l, d.section("Errors seen (newest first)"))
			for i := len(errs) - 1; i >= 0; i-- {
				l = append(l, d.errorLines(&errs[i], "  "+clock(errs[i].At)+"  ")...)
			}
		}
	}

	if e := o.LastError; e != nil {
		head := d.section("Last error")
		if !e.At.IsZero() {
			head += " at " + clock(e.At)
		}
		l = append(l, head)
		// The error is wrapped, not cut: its end (the reject reason, the
		// agent's hint) is often what says what to change.
		text := ansi.Wrap(errorText(e), max(d.width-2, 20), "")
		for _, line := range strings.Split(text, "\n") {
			l = append(l, "  "+d.st.errorText.Render(line))
		}
	}

	if len(o.History) > 0 {
		l = append(l, d.section("History (newest first)"))
		for i := len(o.History) - 1; i >= 0; i-- {
			ev := o.History[i]
			line := "  " + clock(ev.At) + "  " + ev.Name
			if ev.Detail != "" {
				line += "  " + ev.Detail
			}
			l = append(l, line)
		}
	}
	// The configuration comes last: it is what the operator wrote, while
	// the live facts above are what they cannot see elsewhere.
	if len(o.Config) > 0 {
		l = append(l, d.section("Configuration"))
		for _, s := range o.Config {
			l = append(l, fact(s.Key, s.Value))
		}
	}
	return l
}

// declaredLines say what the configuration and the state declare of o.
func (d *detailPane) declaredLines(o *Object, decl *Declared) []string {
	l := []string{d.section("Declared")}
	if decl == nil {
		return append(l, fact("declared", "not by the configuration or the state read"))
	}
	var where []string
	if decl.InConfig {
		where = append(where, "the configuration")
	}
	if decl.InState {
		where = append(where, "the state")
	}
	l = append(l, fact("declared by", strings.Join(where, " and ")))
	if o.Status == StatusMissing {
		l = append(l, fact("agent", "does not hold it: "+o.LastEvent))
	}
	if decl.Tainted {
		l = append(l, fact("tainted", "yes: the next plan replaces it"))
	}
	return l
}

// errorLines is an error wrapped to the pane, each line after the first
// indented as the first's prefix.
func (d *detailPane) errorLines(e *ErrorInfo, prefix string) []string {
	text := ansi.Wrap(errorText(e), max(d.width-ansi.StringWidth(prefix), 20), "")
	var l []string
	for i, line := range strings.Split(text, "\n") {
		if i > 0 {
			prefix = strings.Repeat(" ", ansi.StringWidth(prefix))
		}
		l = append(l, prefix+d.st.errorText.Render(line))
	}
	return l
}

func (d *detailPane) section(name string) string { return d.st.section.Render(name) }

func fact(k, v string) string { return "  " + fit(k, 18) + " " + v }

func lossRate(p *ProbeStats) string {
	if p.Sent == 0 {
		return "-"
	}
	return strconv.FormatFloat(100*float64(p.Lost)/float64(p.Sent), 'f', 2, 64) + "%"
}

func (d *detailPane) acceptedCount(listener string) int {
	n := 0
	for _, o := range d.w.shownObjects {
		if o.Parent == listener {
			n++
		}
	}
	return n
}
