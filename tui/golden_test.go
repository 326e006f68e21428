package tui

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// updating reports whether -update was given: rewrite testdata/*.golden
// from the current output. The flag itself is defined by
// charmbracelet/x/exp/golden, which teatest imports, so it is looked up
// rather than defined twice.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// golden compares got with testdata/name.golden, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if updating() {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tui -run %s -update to create it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("%s differs from %s:\n--- got\n%s\n--- want\n%s", t.Name(), path, got, want)
	}
}

// checkBox fails unless view is exactly height lines of width cells with
// no escape sequences: the panes must fill their box, colour off.
func checkBox(t *testing.T, view string, width, height int) {
	t.Helper()
	if strings.Contains(view, "\x1b") {
		t.Errorf("view contains escape sequences with colour off: %q", view)
	}
	lines := strings.Split(view, "\n")
	if len(lines) != height {
		t.Errorf("view has %d lines, want %d", len(lines), height)
	}
	for i, l := range lines {
		if w := ansi.StringWidth(l); w != width {
			t.Errorf("line %d is %d cells wide, want %d: %q", i, w, width, l)
		}
	}
}

func TestGoldenHeader(t *testing.T) {
	m := newTestModel(120, 30, fixtureObjects())
	golden(t, "header_120", m.header.View())
	checkBox(t, m.header.View(), 120, 3)
}

func TestGoldenHeaderAgentLost(t *testing.T) {
	m := newTestModel(120, 30, fixtureObjects())
	m.Update(feedMsg{link: linkState{err: errors.New("rpc error: code = Unavailable desc = connection refused"), retryAt: fixedNow.Add(4 * time.Second)}})
	golden(t, "header_agent_lost_120", m.header.View())
	checkBox(t, m.header.View(), 120, 4)
}

func TestGoldenTable(t *testing.T) {
	for _, width := range []int{160, 120, 80, 50} {
		m := newTestModel(width, 30, fixtureObjects())
		m.table.setSize(width, 12)
		name := "table_" + itoa(width)
		golden(t, name, m.table.View())
		checkBox(t, m.table.View(), width, 12)
	}
}

// A wide terminal shows whole what narrower ones cut: a long address, an
// IPv6 address, a listener's long last event.
func TestGoldenTableWide(t *testing.T) {
	objs := append(fixtureObjects(),
		Object{Address: `endpoint.storage_clients["rack-12/host-07.example.internal"]`, Kind: KindEndpoint, Status: StatusEstablished,
			LocalAddr: "[fd00:77:0:1::a2]:50001", RemoteAddr: "[fd00:77:0:1::1]:7471", QPNum: 1100, QPType: "RC", Device: "rxe0", Port: 1,
			ConnectedSince: ago(time.Minute), LastEvent: "ESTABLISHED", LastEventAt: ago(time.Minute),
			Probe: &ProbeStats{Last: 15 * time.Microsecond, Sent: 60}},
		Object{Address: "listener.replicas", Kind: KindListener, Status: StatusListening, LocalAddr: "10.77.0.1:7472", Device: "rxe0", Port: 1,
			LastEvent: "rejected a request", LastEventAt: ago(2 * time.Second)},
	)
	for _, width := range []int{240, 200} {
		m := newTestModel(width, 30, objs)
		m.table.setSize(width, 14)
		golden(t, "table_wide_"+itoa(width), m.table.View())
		checkBox(t, m.table.View(), width, 14)
	}
}

func TestGoldenTableSortedByStatusAndFiltered(t *testing.T) {
	m := newTestModel(120, 30, fixtureObjects())
	press(m, "s")
	m.table.setSize(120, 12)
	golden(t, "table_sort_status_120", m.table.View())
	press(m, "/", "c", "l", "i", "enter")
	golden(t, "table_filter_cli_120", m.table.View())
}

func TestGoldenDetail(t *testing.T) {
	m := newTestModel(100, 40, fixtureObjects())
	m.table.moveTo(m.table.rowIndex("endpoint.client[2]"))
	m.detail.show(m.table.selected)
	m.detail.setSize(100, 24)
	golden(t, "detail_rejected_100", m.detail.View())
	checkBox(t, m.detail.View(), 100, 24)

	m.detail.show("endpoint.client[1]")
	golden(t, "detail_degraded_100", m.detail.View())
}

func TestGoldenFooter(t *testing.T) {
	m := newTestModel(120, 30, fixtureObjects())
	golden(t, "footer_120", m.footer.View())
	press(m, "?")
	golden(t, "footer_full_help_120", m.footer.View())
	press(m, "?", "/", "r", "x", "e")
	golden(t, "footer_filtering_120", m.footer.View())
}

func TestGoldenScreen(t *testing.T) {
	for _, size := range [][2]int{{120, 24}, {80, 24}, {120, 36}, {40, 10}} {
		m := newTestModel(size[0], size[1], fixtureObjects())
		press(m, "j", "j", "j", "j", "j", "j")
		name := "screen_" + itoa(size[0]) + "x" + itoa(size[1])
		golden(t, name, m.View())
		checkBox(t, m.View(), size[0], size[1])

		press(m, "enter")
		golden(t, name+"_detail", m.View())
		checkBox(t, m.View(), size[0], size[1])
	}
}

// Another agent answering after the one shown says so, and what went
// with the first: its objects.
func TestGoldenHeaderAgentRestarted(t *testing.T) {
	m := newTestModel(120, 30, fixtureObjects())
	m.Update(feedMsg{link: linkState{err: errors.New("rpc error: code = Unavailable desc = connection refused"), retryAt: fixedNow.Add(4 * time.Second)}})
	next := fixtureAgent
	next.PID, next.StartedAt = 4343, fixedNow.Add(-11*time.Second)
	m.Update(feedMsg{snapshot: &snapshot{agent: next}, link: linkState{up: true}})
	golden(t, "header_agent_restarted_120", m.header.View())
	checkBox(t, m.header.View(), 120, 4)
	// The fixture's accepted connections are not counted: plan does not
	// make them. At 80 columns the banner is whole.
	if !strings.Contains(m.header.View(), "agent restarted (pid 4242→4343): 7 objects gone; plan makes them again") {
		t.Errorf("no restart banner:\n%s", m.header.View())
	}
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	if !strings.Contains(m.header.View(), "plan makes them again") {
		t.Errorf("the banner is cut at 80 columns:\n%s", m.header.View())
	}
	// While the new agent holds some of them again, the banner says how
	// many are still gone; once it holds all, the news is old.
	o := fixtureObjects()[0]
	m.Update(feedMsg{updates: []Update{{Object: o}}, link: linkState{up: true}})
	if !strings.Contains(m.header.View(), "agent restarted (pid 4242→4343): 6 of 7 objects gone; plan makes them again") {
		t.Errorf("the banner does not count the objects still gone:\n%s", m.header.View())
	}
	var back []Update
	for _, o := range fixtureObjects() {
		back = append(back, Update{Object: o})
	}
	m.Update(feedMsg{updates: back, link: linkState{up: true}})
	if strings.Contains(m.header.View(), "restarted") {
		t.Errorf("the banner stays once every object is made again:\n%s", m.header.View())
	}
	// The same agent again (a reconnection) is no restart.
	m = newTestModel(120, 30, fixtureObjects())
	m.Update(feedMsg{snapshot: &snapshot{objects: fixtureObjects(), agent: fixtureAgent}, link: linkState{up: true}})
	if strings.Contains(m.header.View(), "restarted") {
		t.Errorf("a reconnection to the same agent shows a restart:\n%s", m.header.View())
	}
}

// The restart banner goes after restartNews even when objects are still
// gone (the configuration may no longer declare them).
func TestHeaderAgentRestartedExpires(t *testing.T) {
	now := fixedNow
	m := New(Options{NoColor: true, Now: func() time.Time { return now }})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	m.Update(feedMsg{snapshot: &snapshot{objects: fixtureObjects(), agent: fixtureAgent}, link: linkState{up: true}})
	next := fixtureAgent
	next.PID = 4343
	m.Update(feedMsg{snapshot: &snapshot{objects: fixtureObjects()[:1], agent: next}, link: linkState{up: true}})
	now = now.Add(restartNews - time.Second)
	if !strings.Contains(m.header.View(), "6 of 7 objects gone") {
		t.Errorf("no restart banner %v after the restart:\n%s", restartNews-time.Second, m.header.View())
	}
	now = now.Add(time.Second)
	if strings.Contains(m.header.View(), "restarted") {
		t.Errorf("the restart banner stays after %v:\n%s", restartNews, m.header.View())
	}
}
