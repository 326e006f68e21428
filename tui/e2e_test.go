package tui

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"
)

// startMonitor runs the monitor on a fake agent in a 120x30 terminal.
func startMonitor(t *testing.T, src *fakeSource) (*teatest.TestModel, *Model) {
	t.Helper()
	m := New(Options{Source: src, NoColor: true, Now: fixedClock, MinBackoff: 20 * time.Millisecond, MaxBackoff: 100 * time.Millisecond, Frame: 5 * time.Millisecond})
	t.Cleanup(m.Close)
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 30))
	return tm, m
}

// waitFor waits until everything the terminal received since the last
// wait contains all of texts.
func waitFor(t *testing.T, tm *teatest.TestModel, texts ...string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		for _, s := range texts {
			if !bytes.Contains(b, []byte(s)) {
				return false
			}
		}
		return true
	}, teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(5*time.Millisecond))
}

func typeKey(tm *teatest.TestModel, s string) {
	switch s {
	case "enter":
		tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	case "esc":
		tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	default:
		tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)})
	}
}

// quit ends the program and returns the final model.
func quit(t *testing.T, tm *teatest.TestModel) *Model {
	t.Helper()
	typeKey(tm, "q")
	return tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*Model)
}

func TestE2EFilterByStatusAddressAndDevice(t *testing.T) {
	tm, _ := startMonitor(t, newFakeSource(fixtureObjects()))
	waitFor(t, tm, "Objects 9 · sort: address")

	typeKey(tm, "/")
	tm.Type("rejected")
	typeKey(tm, "enter")
	waitFor(t, tm, "Objects 1 of 9", "filter: rejected", "endpoint.client[2]")

	typeKey(tm, "/")
	for range len("rejected") {
		tm.Send(tea.KeyMsg{Type: tea.KeyBackspace})
	}
	tm.Type("mlx5")
	typeKey(tm, "enter")
	waitFor(t, tm, "Objects 2 of 9", "filter: mlx5")

	typeKey(tm, "esc") // clears the filter
	waitFor(t, tm, "Objects 9 · sort: address")

	typeKey(tm, "/")
	tm.Type("storage")
	typeKey(tm, "enter")
	waitFor(t, tm, "Objects 3 of 9", "filter: storage")

	final := quit(t, tm)
	var got []string
	for _, r := range final.table.rows {
		got = append(got, r.obj.Address)
	}
	want := []string{"listener.storage", "listener.storage/conn/1", "listener.storage/conn/2"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("rows = %q, want %q", got, want)
	}
}

func TestE2ESortCycles(t *testing.T) {
	tm, _ := startMonitor(t, newFakeSource(fixtureObjects()))
	waitFor(t, tm, "sort: address")
	for _, mode := range []string{"status", "last event", "reconnects", "rtt", "severity", "address"} {
		typeKey(tm, "s")
		waitFor(t, tm, "sort: "+mode+" ")
	}
	typeKey(tm, "s")
	waitFor(t, tm, "sort: status")
	final := quit(t, tm)
	if first := final.table.rows[0].obj.Address; first != "endpoint.client[10]" {
		t.Errorf("first row by status = %s, want the failed endpoint.client[10]", first)
	}
}

func TestE2ESelectionFollowsItsObjectWhileRowsChange(t *testing.T) {
	src := newFakeSource(fixtureObjects())
	tm, _ := startMonitor(t, src)
	waitFor(t, tm, "Objects 9")
	for range 6 {
		typeKey(tm, "j")
	}
	waitFor(t, tm, "row 7") // endpoint.client[1]

	// Rows appear before it and one before it goes away.
	src.send(Update{Object: Object{Address: "endpoint.a[0]", Kind: KindEndpoint, Status: StatusConnecting}})
	src.send(Update{Object: Object{Address: "endpoint.a[1]", Kind: KindEndpoint, Status: StatusConnecting}})
	src.send(Update{Object: Object{Address: "endpoint.a[2]", Kind: KindEndpoint, Status: StatusConnecting}})
	src.send(Update{Object: Object{Address: `endpoint.backup["east"]`}, Deleted: true})
	waitFor(t, tm, "Objects 11", "row 9")

	// Its own status changes, and the sort by status moves it.
	o := fixtureObjects()[5]
	o.Status = StatusReconnecting
	o.Probe = nil
	src.send(Update{Object: o})
	typeKey(tm, "s")
	waitFor(t, tm, "sort: status", "row 3")

	final := quit(t, tm)
	if final.table.selected != "endpoint.client[1]" {
		t.Errorf("selection = %s, want endpoint.client[1]", final.table.selected)
	}
	if r := final.table.rows[final.table.cursor]; r.obj.Address != "endpoint.client[1]" || r.obj.Status != StatusReconnecting {
		t.Errorf("cursor row = %s %s", r.obj.Address, r.obj.Status)
	}
}

func TestE2EAgentLostAndBack(t *testing.T) {
	src := newFakeSource(fixtureObjects())
	tm, _ := startMonitor(t, src)
	waitFor(t, tm, "Objects 9", "endpoint.client[2]")

	src.refuse.Store(true)
	src.drop <- errRefused
	waitFor(t, tm, "agent unreachable — reconnecting", "as of 10:00:00", "connection refused")

	// While it is away the agent recovers a connection; the view keeps the
	// last known state until it is back.
	recovered := fixtureObjects()[6]
	recovered.Status, recovered.LastError = StatusEstablished, nil
	src.set(recovered)
	src.refuse.Store(false)
	waitFor(t, tm, "9 objects · 4 problems · 1 error · 1 disconnected · 1 degraded")

	final := quit(t, tm)
	if !final.world.link.up || final.world.stale() {
		t.Errorf("link = %+v after the agent came back", final.world.link)
	}
	if got := final.world.object("endpoint.client[2]").Status; got != StatusEstablished {
		t.Errorf("endpoint.client[2] is %s after reconnecting, want established from the new snapshot", got)
	}
	if n := src.watches.Load(); n < 2 {
		t.Errorf("Watch called %d times, want a reconnection", n)
	}
}

func TestE2EDetailAndFocus(t *testing.T) {
	tm, _ := startMonitor(t, newFakeSource(fixtureObjects()))
	waitFor(t, tm, "Objects 9")
	for range 7 {
		typeKey(tm, "j")
	}
	typeKey(tm, "enter")
	waitFor(t, tm, "── endpoint.client[2]", "endpoint · rejected")
	tm.Send(tea.KeyMsg{Type: tea.KeyTab})
	waitFor(t, tm, "(focused; tab returns)")
	typeKey(tm, "j") // scrolls the detail, not the table
	final := quit(t, tm)
	if final.table.selected != "endpoint.client[2]" || final.detail.offset != 1 {
		t.Errorf("selected %s, detail offset %d; want endpoint.client[2] and 1", final.table.selected, final.detail.offset)
	}
}

// An agent that said it stopped is waited for, not reported as an outage,
// also while the retries find no agent; one that went away is named.
func TestE2EAgentStoppedOrGone(t *testing.T) {
	src := newFakeSource(fixtureObjects())
	tm, _ := startMonitor(t, src)
	waitFor(t, tm, "Objects 9")

	src.refuse.Store(true)
	src.drop <- ErrAgentStopped
	waitFor(t, tm, "agent stopped (pid 4242) — waiting for a new one; as of 10:00:00")
	for src.watches.Load() < 3 {
		time.Sleep(10 * time.Millisecond) // retries refused
	}
	m := quit(t, tm)
	if b := m.header.banner(); !strings.Contains(b, "agent stopped (pid 4242)") || strings.Contains(b, "refused") {
		t.Errorf("banner after failed retries: %q", b)
	}

	src = newFakeSource(fixtureObjects())
	tm, _ = startMonitor(t, src)
	waitFor(t, tm, "Objects 9")
	src.refuse.Store(true)
	src.drop <- ErrAgentGone
	waitFor(t, tm, "agent pid 4242 went away (connection closed) — reconnecting")
	m = quit(t, tm)
	if b := m.header.banner(); strings.Contains(b, "refused") {
		t.Errorf("banner after failed retries: %q", b)
	}
}

// SIGTERM (or SIGINT, SIGHUP) ends the monitor as interrupted, not as a
// quit: the command exits 1 for it.
func TestSignalInterruptsTheMonitor(t *testing.T) {
	m := New(Options{Source: newFakeSource(fixtureObjects()), NoColor: true, Now: fixedClock})
	defer m.Close()
	sigs := make(chan os.Signal, 1)
	sigs <- syscall.SIGTERM
	in, w := io.Pipe()
	defer w.Close()
	errc := make(chan error, 1)
	go func() { errc <- run(m, in, io.Discard, sigs) }()
	select {
	case err := <-errc:
		if !errors.Is(err, ErrInterrupted) {
			t.Errorf("run = %v, want ErrInterrupted", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the monitor goes on after SIGTERM")
	}
}

// apply -monitor's notice (how the apply ended) shows in the header once
// it comes, so that the user knows the report waits behind q.
func TestE2ENoticeShowsInTheHeader(t *testing.T) {
	src := newFakeSource(fixtureObjects())
	notice := make(chan string, 1)
	m := New(Options{Source: src, NoColor: true, Now: fixedClock, MinBackoff: 20 * time.Millisecond, MaxBackoff: 100 * time.Millisecond,
		Frame: 5 * time.Millisecond, Notice: notice})
	t.Cleanup(m.Close)
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 30))
	waitFor(t, tm, "Objects 9")
	notice <- "apply failed — q shows its report"
	waitFor(t, tm, "apply failed — q shows its report")
	quit(t, tm)
}
