package tui

import (
	"strings"
	"testing"
)

// The detail belongs to a row on screen: enter while a filter matches
// nothing opens none, and a detail whose object the filter hides closes.
func TestDetailOnlyForARowOnScreen(t *testing.T) {
	m := newTestModel(120, 30, fixtureObjects())
	press(m, "/", "z", "z", "z", "enter")
	if len(m.table.rows) != 0 {
		t.Fatalf("the filter zzz shows %d rows", len(m.table.rows))
	}
	press(m, "enter")
	if view := m.View(); m.showDetail || strings.Contains(view, "── ") {
		t.Errorf("enter with no row opened a detail:\n%s", view)
	}

	press(m, "esc", "j", "j", "enter")
	shown := m.table.selected
	if !m.showDetail || !strings.Contains(m.View(), "── "+shown) {
		t.Fatalf("enter on %s opened no detail:\n%s", shown, m.View())
	}
	press(m, "/", "z", "z", "z")
	if view := m.View(); m.showDetail || strings.Contains(view, "── ") {
		t.Errorf("the detail of %s stays open while the filter hides it:\n%s", shown, view)
	}
	press(m, "esc") // leaves the filter's input and clears the filter
	if m.table.selected != shown || m.showDetail {
		t.Errorf("after the filter: selected %s, detail open %v; want %s, closed", m.table.selected, m.showDetail, shown)
	}
}

// The private data a connection's client sent shows among the live facts.
func TestDetailShowsThePeersPrivateData(t *testing.T) {
	objs := fixtureObjects()
	for i := range objs {
		if objs[i].Address == "listener.storage/conn/1" {
			objs[i].ReceivedPrivateData = `"many-0"`
		}
	}
	m := newTestModel(120, 40, objs)
	m.detail.show("listener.storage/conn/1")
	if l := strings.Join(m.detail.lines(), "\n"); !strings.Contains(l, `peer private data  "many-0"`) {
		t.Errorf("the detail lacks the private data:\n%s", l)
	}
	m.detail.show("listener.storage/conn/2")
	if l := strings.Join(m.detail.lines(), "\n"); strings.Contains(l, "private data") {
		t.Errorf("a connection without private data shows some:\n%s", l)
	}
}

// A protection domain has a device and no port: its detail names no
// "port 0".
func TestDetailOfAProtectionDomainHasNoPort(t *testing.T) {
	m := newTestModel(120, 30, fixtureObjects())
	pd := fixtureObjects()[0]
	pd.Port = 0 // as the agent reports one
	m.Update(feedMsg{updates: []Update{{Object: pd}}, link: linkState{up: true}})
	press(m, "g", "enter")
	if v := m.View(); !strings.Contains(v, "── protection_domain.pd0") || strings.Contains(v, "port 0") || !strings.Contains(v, "device             rxe0") {
		t.Errorf("detail:\n%s", v)
	}
}

// esc closes the full help, as its own line says ("esc close/clear").
func TestEscClosesTheFullHelp(t *testing.T) {
	m := newTestModel(120, 30, fixtureObjects())
	press(m, "?")
	if !m.footer.help.ShowAll {
		t.Fatal("? shows no full help")
	}
	press(m, "esc")
	if m.footer.help.ShowAll {
		t.Errorf("esc leaves the full help open:\n%s", m.View())
	}
}

// At 80 columns the one-line help still says how to quit.
func TestShortHelpKeepsQuitWhenNarrow(t *testing.T) {
	for _, w := range []int{80, 60} {
		m := newTestModel(w, 24, fixtureObjects())
		if v := m.footer.View(); !strings.Contains(v, "q quit") || !strings.Contains(v, "? help") {
			t.Errorf("%d columns: %q", w, v)
		}
	}
}

// The kernel's word on an object shows among its live facts; none when
// the agent has not compared it.
func TestDetailShowsTheKernelsView(t *testing.T) {
	objs := fixtureObjects()
	for i := range objs {
		if objs[i].Address == "listener.storage/conn/1" {
			objs[i].Kernel = "mismatch: QP 17 is ERR in the kernel, not RTS as an established connection's"
		}
	}
	m := newTestModel(160, 40, objs)
	m.detail.show("listener.storage/conn/1")
	if l := strings.Join(m.detail.lines(), "\n"); !strings.Contains(l, "kernel             mismatch: QP 17 is ERR in the kernel") {
		t.Errorf("the detail lacks the kernel's view:\n%s", l)
	}
	m.detail.show("listener.storage/conn/2")
	if l := strings.Join(m.detail.lines(), "\n"); strings.Contains(l, "kernel ") {
		t.Errorf("an unchecked connection shows a kernel line:\n%s", l)
	}
}
