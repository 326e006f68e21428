package tui

import (
	"errors"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// osc retitles the terminal: what an agent's client or a peer could put in
// a name, an address, a reject reason or an event.
const osc = "\x1b]0;owned\x07"

func hostileObjects() []Object {
	evil := "endpoint.evil" + osc
	return []Object{
		{Address: "listener.l\u202e", Kind: KindListener, Status: StatusListening, LocalAddr: "10.77.0.1:7471\x1b[2J",
			Device: "rxe0\u009b31m", Port: 1, LastEvent: "rejected a request", LastEventAt: ago(time.Second),
			History: []Event{{At: ago(time.Second), Name: "rejected a request", Detail: "full" + osc}}},
		{Address: "listener.l\u202e/conn/1", Parent: "listener.l\u202e", Kind: KindConnection, Status: StatusEstablished,
			RemoteAddr: "10.77.0.2:40000\r", ReceivedPrivateData: "hello" + osc, LastEvent: "ESTABLISHED", LastEventAt: ago(time.Second)},
		{Address: evil, Kind: KindEndpoint, Status: StatusRejected, QPType: "RC\x1b[8m",
			LastEvent: "REJECTED" + osc, LastEventAt: ago(time.Second),
			LastError: &ErrorInfo{Call: "rdma_connect", Errno: 111, ErrnoName: "ECONNREFUSED", Message: "rejected: go away" + osc, At: ago(time.Second)},
			Config:    []Setting{{"reject_reason", "go away" + osc}},
			History:   []Event{{At: ago(time.Second), Name: "REJECTED", Detail: "consumer defined: go away" + osc}}},
	}
}

// noControl fails if view holds a byte or character a terminal acts on.
func noControl(t *testing.T, what, view string) {
	t.Helper()
	for _, r := range view {
		if r < ' ' && r != '\n' || r == 0x7f || r >= 0x80 && r < 0xa0 || r == 0x202e {
			t.Fatalf("%s holds %U:\n%q", what, r, view)
		}
	}
}

// What the source sends reaches the screen escaped, through the relay,
// in every pane: the table, the detail (error, private data, history,
// configuration), the header (socket, devices) and the banner.
func TestTheMonitorEscapesWhatTheSourceSends(t *testing.T) {
	src := newFakeSource(nil)
	r := newRelay(src, time.Second, time.Second, time.Millisecond, fixedClock)
	agent := fixtureAgent
	agent.Socket = "/run/rdmaform/agent.sock" + osc
	agent.Devices = []DeviceInfo{{Name: "rxe0" + osc, Ports: []PortInfo{{Num: 1, State: "ACTIVE\x1b[5m"}}}}
	objs := hostileObjects()
	r.gotSnapshot(objs, agent)
	// An update of the evil endpoint, and the connection going: they
	// find the objects the snapshot brought.
	upd := hostileObjects()[2]
	upd.LastEvent = "UNREACHABLE" + osc
	r.gotUpdate(Update{Object: upd})
	r.gotUpdate(Update{Object: Object{Address: "listener.l\u202e/conn/1"}, Deleted: true})

	m := New(Options{NoColor: true, Now: fixedClock, Target: "/run/rdmaform/agent.sock"})
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 50})
	m.Update(r.take())
	if n := len(m.table.rows); n != 2 {
		t.Fatalf("%d rows, want the listener and the endpoint (the update replaced the endpoint, the connection is gone)", n)
	}
	view := m.View()
	noControl(t, "the table", view)
	for _, want := range []string{`endpoint.evil\x1b]0;owned\a`, `listener.l\u202e`, `10.77.0.1:7471\x1b[2J`, `rxe0\u009b31m:1`,
		`UNREACHABLE\x1b]0;owned\a`, `agent.sock\x1b]0;owned\a`, `rxe0\x1b]0;owned\a 1:ACTIVE\x1b[5m`} {
		if !strings.Contains(view, want) {
			t.Errorf("the screen lacks %s:\n%s", want, view)
		}
	}
	checkBox(t, m.table.View(), 200, m.table.height)

	for _, addr := range []string{`endpoint.evil\x1b]0;owned\a`, `listener.l\u202e`} {
		m.table.moveTo(m.table.rowIndex(addr))
		m.detail.show(m.table.selected)
		m.detail.setSize(200, 30)
		d := m.detail.View()
		noControl(t, "the detail of "+addr, d)
		if !strings.Contains(d, addr) {
			t.Errorf("the detail does not name %s:\n%s", addr, d)
		}
	}
	if d := m.detail.View(); !strings.Contains(d, `full\x1b]0;owned\a`) {
		t.Errorf("the listener's history lacks its escaped detail:\n%s", d)
	}

	// The source's error, in the banner when the link goes down.
	m.Update(feedMsg{link: linkState{err: errors.New("refused" + osc), retryAt: fixedNow.Add(time.Second)}})
	noControl(t, "the header", m.header.View())
	if !strings.Contains(m.header.View(), `refused\x1b]0;owned\a`) {
		t.Errorf("the banner lacks the escaped error:\n%s", m.header.View())
	}
}

// The detail of an object whose every text is hostile, from a snapshot.
func TestTheDetailEscapesErrorsPrivateDataAndConfiguration(t *testing.T) {
	r := newRelay(newFakeSource(nil), time.Second, time.Second, time.Millisecond, fixedClock)
	r.gotSnapshot(hostileObjects(), fixtureAgent)
	m := New(Options{NoColor: true, Now: fixedClock})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 60})
	m.Update(r.take())
	for _, o := range hostileObjects() {
		m.detail.show(safeObject(o).Address)
		m.detail.setSize(160, 40)
		d := m.detail.View()
		noControl(t, "the detail of "+o.Address, d)
	}
	m.detail.show(safeObject(hostileObjects()[2]).Address)
	d := m.detail.View()
	for _, want := range []string{`go away\x1b]0;owned\a`, `consumer defined: go away\x1b]0;owned\a`, `RC\x1b[8m`} {
		if !strings.Contains(d, want) {
			t.Errorf("the detail lacks %s:\n%s", want, d)
		}
	}
	m.detail.show(safeObject(hostileObjects()[1]).Address)
	if d := m.detail.View(); !strings.Contains(d, `hello\x1b]0;owned\a`) || !strings.Contains(d, `10.77.0.2:40000\r`) {
		t.Errorf("the connection's detail lacks its escaped private data or remote address:\n%s", d)
	}
}

// Escaping leaves the source's slices alone: it may still hold them.
func TestSafeObjectCopiesWhatItChanges(t *testing.T) {
	o := hostileObjects()[2]
	hist, cfg, lastErr := o.History, o.Config, o.LastError
	s := safeObject(o)
	if hist[0].Detail != "consumer defined: go away"+osc || cfg[0].Value != "go away"+osc || lastErr.Message != "rejected: go away"+osc {
		t.Errorf("safeObject changed the source's object: %+v %+v %+v", hist, cfg, lastErr)
	}
	if s.History[0].Detail == hist[0].Detail {
		t.Errorf("the history was not escaped: %q", s.History[0].Detail)
	}
	clean := Object{Address: "endpoint.café", History: []Event{{Name: "ESTABLISHED"}}}
	if c := safeObject(clean); &c.History[0] != &clean.History[0] {
		t.Errorf("a clean object's history was copied")
	}
}
