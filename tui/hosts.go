package tui

import (
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/rdmaform/rdmaform/tui/termsafe"
)

// A fabric is several hosts, each an agent the monitor watches on its own
// (Options.Hosts): one relay per host, so that a host that stops
// answering is shown unreachable, its last rows kept dimmed, while the
// others go on updating. Objects keep their configuration addresses,
// which are the fabric's (one configuration names every object once,
// whichever agent holds it): peers match across hosts as within one.

// Host is one agent of a fabric.
type Host struct {
	// Name is the host as the HOST column and the banners show it (the
	// agent block's key: `agent.storage["s1"]`, "local" for the local
	// agent); the monitor sets it as the Host of the objects Source sends.
	Name string
	// Target is where Source connects (HOST:PORT, a socket), for the
	// banner of a host that never answered.
	Target string
	Source Source
}

// hostView is what the world knows of one host: the link to it, its
// agent, and whether its rows are the last picture.
type hostView struct {
	name, target string
	link         linkState
	agent        AgentInfo
	synced       bool // a snapshot came at least once
	kept         bool // the link is down: its rows are the last picture
	lastUpdate   time.Time
}

// fabric reports whether the monitor watches several hosts.
func (w *world) fabric() bool { return len(w.hostOrder) > 0 }

// addHosts makes the world a fabric's.
func (w *world) addHosts(hosts []Host) {
	w.hosts = make(map[string]*hostView, len(hosts))
	for _, h := range hosts {
		w.hosts[h.Name] = &hostView{name: h.Name, target: h.Target}
		w.hostOrder = append(w.hostOrder, h.Name)
	}
	w.hostRank = make(map[string]int, len(hosts))
	for i, n := range w.hostOrder {
		w.hostRank[n] = i
	}
}

// applyHost takes in one batch from a host's relay: as apply does for the
// one agent, but a snapshot replaces only that host's objects, and a link
// that goes down keeps that host's rows.
func (w *world) applyHost(f feedMsg) {
	h := w.hosts[f.host]
	if h == nil {
		return
	}
	wasUp, wasDown := h.link.up, w.hostDown(f.host)
	h.link = f.link
	now, down := w.now(), w.hostDown(f.host)
	rank := w.hostRank[f.host]
	if f.snapshot != nil {
		for _, s := range w.held {
			if s.held.Host == f.host {
				w.hold(s, nil) // those the snapshot leaves out go
				w.touch(s)
			}
		}
		for a, g := range w.gone {
			if g.obj.Host == f.host {
				delete(w.gone, a)
			}
		}
		for i := range f.snapshot.objects {
			o := &f.snapshot.objects[i]
			o.Host, o.hostRank, o.hostDown = f.host, rank, down
			s := w.slotOf(o.Address)
			w.hold(s, o)
			w.observe(s, o, now)
			w.touch(s)
		}
		h.agent = f.snapshot.agent
		h.synced, h.kept = true, false
		h.lastUpdate = now
	}
	for i := range f.updates {
		u := &f.updates[i]
		u.Object.Host, u.Object.hostRank, u.Object.hostDown = f.host, rank, down
		s := w.slotOf(u.Object.Address)
		if u.Deleted {
			if o := s.held; o != nil && o.Host == f.host {
				w.gone[o.Address] = goneObject{obj: o, at: now}
				w.hold(s, nil)
			}
		} else {
			w.hold(s, &u.Object)
			w.observe(s, &u.Object, now)
			h.lastUpdate = now
		}
		w.touch(s)
	}
	changed := f.snapshot != nil || len(f.updates) > 0
	if wasUp && !f.link.up && h.synced {
		w.keepHostPicture(h)
		changed = true
	}
	if down != wasDown {
		// The host's rows change health: each is replaced by a copy marked
		// so (the totals count the old one out, the new one in), and its
		// placeholders say why.
		for _, s := range w.held {
			if o := s.held; o.Host == f.host && o.hostDown != down {
				c := *o
				c.hostDown = down
				w.hold(s, &c)
				w.touch(s)
			}
		}
		for a, d := range w.declared {
			if _, held := w.held[a]; d.Host == f.host && !held {
				w.touch(w.slotOf(a))
			}
		}
		changed = true
	}
	w.forgetGone(now)
	w.fabricLink()
	if changed {
		w.merge()
	}
}

// keepHostPicture puts back what the host's agent deleted just before the
// link went down (it stopped, and took its objects with it), as
// keepLastPicture does for the one agent, and touches their addresses.
func (w *world) keepHostPicture(h *hostView) {
	down := h.link.downAt
	if down.IsZero() {
		down = w.now()
	}
	for a, g := range w.gone {
		if g.obj.Host != h.name {
			continue
		}
		if _, ok := w.held[a]; !ok && !g.at.Before(down.Add(-goneMemory)) {
			s := w.slotOf(a)
			w.hold(s, g.obj)
			w.touch(s)
		}
		delete(w.gone, a)
	}
	h.kept = true
}

// fabricLink sets the world's link from its hosts': up while any host
// answers, so that only the rows of a host that does not are stale.
func (w *world) fabricLink() {
	l := linkState{}
	for _, h := range w.hosts {
		w.synced = w.synced || h.synced
		if h.link.up {
			l.up = true
		}
		if h.link.downAt.After(l.downAt) {
			l.downAt = h.link.downAt
		}
		if h.link.err != nil {
			l.err = h.link.err
		}
	}
	w.link = l
}

// hostDown reports whether the host of an object does not answer: its
// rows are the last picture.
func (w *world) hostDown(name string) bool {
	h := w.hosts[name]
	return h != nil && !h.link.up && (h.synced || h.link.err != nil)
}

// hostAt is the time a host's rows' clocks read: when the link went down,
// for a host that does not answer, as at() does for the one agent.
func (w *world) hostAt(name string, now time.Time) time.Time {
	if h := w.hosts[name]; h != nil && w.hostDown(name) && !h.link.downAt.IsZero() && h.link.downAt.Before(now) {
		return h.link.downAt
	}
	return now
}

// group is o's group in the table's order: its host's place when the
// table groups a fabric's rows by host, so that each host's rows come
// together in the hosts' order; 0 otherwise.
func (t *tablePane) group(o *Object) int {
	if !t.w.fabric() || t.ungrouped {
		return 0
	}
	return o.hostRank
}

func (t *tablePane) toggleGrouping() {
	if t.w.fabric() {
		t.ungrouped, t.dirty = !t.ungrouped, true
		t.refresh()
	}
}

// rowDim reports whether a row shows the last picture of a host that
// does not answer, or of the one agent gone.
func (t *tablePane) rowDim(o *Object) bool {
	return t.w.kept || (o.Host != "" && t.w.hostDown(o.Host))
}

// hostLabel is a host's name in the HOST column: without "agent.", which
// every agent block's key starts with.
func hostLabel(name string) string { return strings.TrimPrefix(name, "agent.") }

// startRelays starts the one relay, or each host's, and the commands that
// bring their batches in.
func (m *Model) startRelays() tea.Cmd {
	if len(m.hostRelays) == 0 {
		m.relay.run()
		return m.relay.next
	}
	cmds := make([]tea.Cmd, 0, len(m.hostRelays))
	for _, r := range m.hostRelays {
		r.run()
		cmds = append(cmds, r.next)
	}
	return tea.Batch(cmds...)
}

// relayOf is the relay a batch came from, to re-arm.
func (m *Model) relayOf(host string) *relay {
	if r := m.hostRelays[host]; r != nil {
		return r
	}
	return m.relay
}

func (m *Model) stopRelays() {
	m.relay.stop()
	for _, r := range m.hostRelays {
		r.stop()
	}
}

// newHostRelays makes one relay per host, each tagging its batches with
// its host.
func newHostRelays(o Options) map[string]*relay {
	if len(o.Hosts) == 0 {
		return nil
	}
	rs := make(map[string]*relay, len(o.Hosts))
	for _, h := range o.Hosts {
		r := newRelay(h.Source, o.MinBackoff, o.MaxBackoff, o.Frame, o.Now)
		r.host = h.Name
		rs[h.Name] = r
	}
	return rs
}

// fabricHeader is the header's lines for a fabric: the hosts and how many
// answer, their devices, the totals, and a banner for those that do not.
func (h *headerPane) fabricHeader() []string {
	w := h.w
	up, down := h.hostLinks()
	first := h.st.title.Render("rdmaform monitor") + fmt.Sprintf("  fabric of %d %s: %d reachable", len(w.hostOrder), plural(len(w.hostOrder), "host", "hosts"), up)
	if len(down) > 0 {
		first += " · " + h.st.problems.Render(fmt.Sprintf("%d unreachable", len(down)))
	}
	if waiting := len(w.hostOrder) - up - len(down); waiting > 0 {
		first += fmt.Sprintf(" · %d connecting", waiting)
	}
	// The line is cut at the screen's width: hosts past it are not
	// formatted (a fabric of hundreds would format them every frame).
	var devs []string
	const sep = " · "
	shown := ansi.StringWidth("devices: ") - ansi.StringWidth(sep)
	for _, n := range w.hostOrder {
		hv := w.hosts[n]
		if !hv.link.up {
			continue
		}
		if shown > h.width {
			break
		}
		var ds []string
		for _, d := range hv.agent.Devices {
			p := d.Name
			for _, port := range d.Ports {
				p += fmt.Sprintf(" %d:%s", port.Num, port.State)
			}
			ds = append(ds, p)
		}
		if len(ds) == 0 {
			ds = []string{"none"}
		}
		d := hostLabel(n) + " " + strings.Join(ds, ", ")
		devs = append(devs, d)
		shown += ansi.StringWidth(sep) + ansi.StringWidth(d)
	}
	devices := h.st.dim.Render("devices: none reported")
	if len(devs) > 0 {
		devices = "devices: " + strings.Join(devs, sep)
	}
	lines := []string{first, devices, h.totalsLine()}
	if b := h.hostsBanner(down); b != "" {
		lines = append(lines, b)
	} else if h.notice != "" {
		lines = append(lines, h.st.banner.Render(fit(" "+termsafe.String(h.notice)+" ", h.width)))
	}
	return lines
}

// hostLinks counts the hosts that answer, and lists those that do not
// (an error, or no answer since they last did); the rest are connecting.
func (h *headerPane) hostLinks() (up int, down []*hostView) {
	for _, n := range h.w.hostOrder {
		hv := h.w.hosts[n]
		switch {
		case hv.link.up:
			up++
		case hv.link.err != nil || hv.synced:
			down = append(down, hv)
		}
	}
	return up, down
}

// hostsBanner says which hosts do not answer, since when their rows are
// the last picture, and why (for one).
func (h *headerPane) hostsBanner(down []*hostView) string {
	if len(down) == 0 {
		return ""
	}
	asOf := func(hv *hostView) string {
		if !hv.synced {
			return "never answered"
		}
		return "last rows as of " + hv.lastUpdate.Format("15:04:05")
	}
	var msg string
	if len(down) == 1 {
		hv := down[0]
		msg = fmt.Sprintf(" %s unreachable — %s; reconnecting", hv.name, asOf(hv))
		if hv.link.err != nil {
			msg += " (" + termsafe.String(hv.link.err.Error()) + ")"
		}
	} else {
		names := make([]string, len(down))
		for i, hv := range down {
			names[i] = hv.name + " " + strings.TrimPrefix(asOf(hv), "last rows ")
		}
		msg = fmt.Sprintf(" %d hosts unreachable — their last rows kept, dimmed: %s", len(down), strings.Join(names, ", "))
	}
	return h.st.banner.Render(fit(msg+" ", h.width))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// hostColumn is a fabric's HOST: the host's name, never cut (two hosts'
// names often differ only at the end), and gone only after the columns
// that do not say why something is broken, before RTT.
var hostColumn = column{title: "HOST", drop: 5, core: true, optional: true,
	cell: hostCell, content: hostWidth}

// hostWidth is hostCell's width, without building the cell where the
// name is plain ASCII: a fabric's batch measures every row's.
func hostWidth(r *row) int {
	l := hostLabel(r.obj.Host)
	if !plainASCII(l) {
		return cellWidth(hostCell(*r, time.Time{}))
	}
	if r.obj.hostDown {
		return len(l) + downMarkWidth
	}
	return len(l)
}

// downMarkWidth is the width of the mark hostCell puts after a host
// that does not answer.
var downMarkWidth = cellWidth(" ✗")

// hostCell is the host's name, marked when it does not answer.
func hostCell(r row, _ time.Time) string {
	if r.obj.hostDown {
		return hostLabel(r.obj.Host) + " ✗"
	}
	return hostLabel(r.obj.Host)
}

// trendWidth is the TREND column's sparkline: the last round trips.
const trendWidth = 12

// trendColumn is a fabric's endpoints' recent round trips, a sparkline
// (the detail draws a minute of them): the first column to go.
var trendColumn = column{title: "RTT TREND", drop: 13, optional: true, cell: trendCell,
	content: func(r *row) int {
		if r.obj.Host == "" || r.obj.Kind != KindEndpoint || r.obj.hist == nil || r.obj.hist.n == 0 {
			return 0
		}
		return trendWidth
	}}

func trendCell(r row, _ time.Time) string {
	h := r.obj.hist
	if r.obj.Host == "" || r.obj.Kind != KindEndpoint || h == nil || h.n == 0 {
		return ""
	}
	return sparkline(h.samples(&h.rtt), 0, trendWidth)
}
