package tui

import (
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// brokenObjects is a fabric with what an operator must see first: a
// rejected endpoint, a peer lost (its probes time out), a listener that
// rejected a request, beside healthy connections, each accepted one with
// its endpoint on this agent.
func brokenObjects() []Object {
	return []Object{
		{Address: "protection_domain.pd0", Kind: KindProtectionDomain, Status: "created", Device: "rxe0", Port: 1,
			LastEvent: "created", LastEventAt: ago(2 * time.Hour)},
		{Address: "listener.storage", Kind: KindListener, Status: StatusListening, LocalAddr: "10.77.0.1:7471", Device: "rxe0", Port: 1,
			LastEvent: "rejected a request", LastEventAt: ago(24 * time.Second)},
		{Address: "listener.storage/conn/7", Parent: "listener.storage", Kind: KindConnection, Status: StatusEstablished,
			LocalAddr: "10.77.0.1:7471", RemoteAddr: "10.77.0.2:50000", QPNum: 307, QPType: "RC", Device: "rxe0", Port: 1,
			ConnectedSince: ago(time.Hour), LastEvent: "ESTABLISHED", LastEventAt: ago(time.Hour)},
		{Address: "listener.storage/conn/9", Parent: "listener.storage", Kind: KindConnection, Status: StatusEstablished,
			LocalAddr: "10.77.0.1:7471", RemoteAddr: "10.77.0.2:50001", QPNum: 309, QPType: "RC", Device: "rxe0", Port: 1,
			ConnectedSince: ago(30 * time.Minute), LastEvent: "ESTABLISHED", LastEventAt: ago(30 * time.Minute)},
		{Address: "endpoint.client[0]", Kind: KindEndpoint, Status: StatusEstablished, LocalAddr: "10.77.0.2:50000", RemoteAddr: "10.77.0.1:7471",
			QPNum: 1000, QPType: "RC", Device: "rxe0", Port: 1, ConnectedSince: ago(time.Hour),
			LastEvent: "ESTABLISHED", LastEventAt: ago(time.Hour),
			Probe: &ProbeStats{Last: 12 * time.Microsecond, Min: 9 * time.Microsecond, Mean: 11 * time.Microsecond, Max: 40 * time.Microsecond, Sent: 3600}},
		{Address: "endpoint.client[1]", Kind: KindEndpoint, Status: StatusEstablished, LocalAddr: "10.77.0.2:50001", RemoteAddr: "10.77.0.1:7471",
			QPNum: 1001, QPType: "RC", Device: "rxe0", Port: 1, ConnectedSince: ago(30 * time.Minute),
			LastEvent: "ESTABLISHED", LastEventAt: ago(30 * time.Minute),
			Probe: &ProbeStats{Last: 15 * time.Microsecond, Min: 9 * time.Microsecond, Mean: 14 * time.Microsecond, Max: 50 * time.Microsecond, Sent: 1800}},
		{Address: "endpoint.client[2]", Kind: KindEndpoint, Status: StatusReconnecting, LocalAddr: "10.77.0.2:50002", RemoteAddr: "10.77.0.9:7471",
			QPType: "RC", Device: "rxe0", Port: 1, Reconnects: 12, LastEvent: "reconnecting", LastEventAt: ago(time.Second),
			LastError: &ErrorInfo{Call: "rdma_connect", Errno: 111, ErrnoName: "ECONNREFUSED", Message: "rdma_connect: REJECTED (reason 8: invalid service ID: no listener on that port)", At: ago(3 * time.Second)},
			History:   []Event{{At: ago(4 * time.Second), Name: "ROUTE_RESOLVED"}, {At: ago(3 * time.Second), Name: "REJECTED", Detail: "status 28"}, {At: ago(time.Second), Name: "reconnecting"}}},
	}
}

// brokenDeclared: two creates that failed (the configuration declares
// them, the state does not hold them), one object the state holds and
// the agent lost, and the objects the agent holds.
func brokenDeclared() []Declared {
	d := []Declared{
		{Address: "endpoint.client[3]", Kind: KindEndpoint, InConfig: true},
		{Address: "endpoint.client[4]", Kind: KindEndpoint, InConfig: true},
		{Address: "endpoint.backup", Kind: KindEndpoint, InConfig: true, InState: true, Tainted: true},
	}
	for _, o := range brokenObjects() {
		if o.Kind != KindConnection {
			d = append(d, Declared{Address: o.Address, Kind: o.Kind, InConfig: true, InState: true})
		}
	}
	return d
}

// newBrokenModel is the broken fabric on screen: the snapshot, then a
// minute later client[1]'s peer gone quiet (60 probes sent, 60 lost).
func newBrokenModel(width, height int) *Model {
	m := newTestModel(width, height, brokenObjects())
	m.Update(declaredMsg{list: brokenDeclared()})
	lost := brokenObjects()[5]
	p := *lost.Probe
	p.Sent, p.Lost, p.Last = 1860, 60, 3*time.Millisecond
	lost.Probe = &p
	m.Update(feedMsg{updates: []Update{{Object: lost}}, link: linkState{up: true}})
	return m
}

func TestGoldenBrokenFabric(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 24}, {160, 24}} {
		m := newBrokenModel(size[0], size[1])
		name := "broken_" + itoa(size[0]) + "x" + itoa(size[1])
		golden(t, name, m.View())
		checkBox(t, m.View(), size[0], size[1])
		// Nothing says why less than the reason: the rejects, the loss and
		// the failed creates are on screen at every width.
		for _, s := range []string{"REJECTED", "rejected a", "60/1860", "not created", "not held by agent", "6 problems"} {
			if !strings.Contains(m.View(), s) {
				t.Errorf("%dx%d: %q is not on screen", size[0], size[1], s)
			}
		}
	}
	// At 160 columns the listener's last event is whole.
	if m := newBrokenModel(160, 24); !strings.Contains(m.View(), "rejected a request 24s ago") {
		t.Errorf("LAST EVENT is cut at 160 columns:\n%s", m.View())
	}
}

// The unhealthy key shows what is broken, worst first with the severity
// sort, and nothing else.
func TestGoldenBrokenUnhealthySortedBySeverity(t *testing.T) {
	m := newBrokenModel(120, 24)
	press(m, "!", "s", "s", "s", "s", "s")
	if m.table.sort != sortBySeverity {
		t.Fatalf("sort %s", m.table.sort)
	}
	golden(t, "broken_unhealthy_severity_120x24", m.View())
	got := addresses(m.table.rows)
	want := []string{"endpoint.backup", "endpoint.client[3]", "endpoint.client[4]", "endpoint.client[2]", "listener.storage", "endpoint.client[1]"}
	if !slices.Equal(got, want) {
		t.Errorf("unhealthy rows by severity = %q, want %q", got, want)
	}
	press(m, "!")
	if len(m.table.rows) != 10 {
		t.Errorf("! again shows %d rows, want all 10", len(m.table.rows))
	}
}

// A stopped agent deletes its objects as it goes: the screen keeps its
// last picture, dimmed, and says of when, until an agent answers again.
func TestGoldenBrokenAgentStopped(t *testing.T) {
	m := newBrokenModel(120, 24)
	var gone []Update
	for _, o := range brokenObjects() {
		gone = append(gone, Update{Object: Object{Address: o.Address, Parent: o.Parent}, Deleted: true})
	}
	m.Update(feedMsg{updates: gone, link: linkState{up: true}})
	m.Update(feedMsg{link: linkState{err: ErrAgentStopped, cause: ErrAgentStopped, downAt: fixedNow}})
	golden(t, "broken_agent_stopped_120x24", m.View())
	checkBox(t, m.View(), 120, 24)
	if n := len(m.world.held); n != len(brokenObjects()) {
		t.Errorf("%d objects kept, want %d", n, len(brokenObjects()))
	}
	if !strings.Contains(m.View(), "agent stopped (pid 4242) — waiting for a new one; as of 10:00:00") {
		t.Errorf("banner:\n%s", m.header.View())
	}
	// A new agent's snapshot replaces the picture.
	m.Update(feedMsg{snapshot: &snapshot{objects: brokenObjects()[:1], agent: fixtureAgent}, link: linkState{up: true}})
	if m.world.kept || m.world.object("endpoint.client[0]").Status != StatusMissing {
		t.Errorf("after a new snapshot: kept %v, client[0] %+v", m.world.kept, m.world.object("endpoint.client[0]"))
	}
}

// Deletions long before the agent went away are not put back: they were
// a destroy, not the agent stopping.
func TestLastPictureLeavesOutOldDeletions(t *testing.T) {
	now := fixedNow
	w := newWorld(func() time.Time { return now })
	w.apply(feedMsg{snapshot: &snapshot{objects: brokenObjects()}, link: linkState{up: true}})
	w.apply(feedMsg{updates: []Update{{Object: Object{Address: "endpoint.client[0]"}, Deleted: true}}, link: linkState{up: true}})
	now = now.Add(goneMemory + time.Second)
	w.apply(feedMsg{updates: []Update{{Object: Object{Address: "endpoint.client[1]"}, Deleted: true}}, link: linkState{up: true}})
	w.apply(feedMsg{link: linkState{err: ErrAgentStopped, downAt: now}})
	if w.object("endpoint.client[0]") != nil {
		t.Error("an object destroyed long before the agent stopped is back")
	}
	if o := w.object("endpoint.client[1]"); o == nil || o.Status != StatusEstablished {
		t.Errorf("the object deleted as the agent stopped: %+v", o)
	}
}

func TestGoldenBrokenDescribe(t *testing.T) {
	m := newBrokenModel(100, 30)
	// A second failure: the describe view lists both.
	o := brokenObjects()[6]
	o.LastError = &ErrorInfo{Call: "rdma_resolve_route", Errno: 110, ErrnoName: "ETIMEDOUT", Message: "rdma_resolve_route: connection timed out (ETIMEDOUT)", At: ago(0)}
	m.Update(feedMsg{updates: []Update{{Object: o}}, link: linkState{up: true}})
	m.table.moveTo(m.table.rowIndex("endpoint.client[2]"))
	press(m, "d")
	golden(t, "broken_describe_100x30", m.View())
	checkBox(t, m.View(), 100, 30)
	if !strings.Contains(m.View(), "ETIMEDOUT") || !strings.Contains(m.View(), "ECONNREFUSED") {
		t.Errorf("describe does not list both errors:\n%s", m.View())
	}
	press(m, "esc")
	if m.describing {
		t.Error("esc does not close describe")
	}

	// The lost peer's detail draws its round trips and losses.
	m.table.moveTo(m.table.rowIndex("endpoint.client[1]"))
	press(m, "enter")
	m.detail.setSize(100, 20)
	golden(t, "broken_detail_lost_100", m.detail.View())
	if !strings.Contains(m.detail.View(), "rtt history        ▂█  max 3ms") || !strings.Contains(m.detail.View(), "loss history       ▁█  of 100%") {
		t.Errorf("no sparklines:\n%s", m.detail.View())
	}
}

func TestHealthRanks(t *testing.T) {
	m := newBrokenModel(120, 24)
	for addr, want := range map[string]health{
		"endpoint.client[3]":      healthError,      // a failed create
		"endpoint.client[2]":      healthRejected,   // reconnecting after REJECTED
		"listener.storage":        healthRejected,   // rejected a request
		"endpoint.client[1]":      healthLostProbes, // its peer went quiet
		"endpoint.client[0]":      healthOK,
		"listener.storage/conn/7": healthOK,
	} {
		if got := healthOf(m.world.object(addr)); got != want {
			t.Errorf("%s: %s, want %s", addr, got, want)
		}
	}
	for _, c := range []struct {
		status string
		want   health
	}{{StatusError, healthError}, {StatusRejected, healthRejected}, {StatusDisconnected, healthDisconnected},
		{StatusReconnecting, healthReconnecting}, {StatusConnecting, healthConnecting}, {StatusEstablished, healthOK}, {"odd", healthUnknown},
		{StatusDegraded, healthLostProbes}, {StatusReady, healthOK}, {StatusListening, healthOK}} {
		if got := healthOf(&Object{Status: c.status}); got != c.want {
			t.Errorf("%s: %s, want %s", c.status, got, c.want)
		}
	}
	// A degraded verdict ranks as lost probes.
	if got := healthOf(&Object{Status: StatusEstablished, Probe: &ProbeStats{Degraded: true}}); got != healthLostProbes {
		t.Errorf("degraded: %s", got)
	}
}

// Connections are named by the endpoint at their other end, and p goes
// from one end to the other.
func TestPeers(t *testing.T) {
	m := newBrokenModel(120, 24)
	if got := m.world.peers["listener.storage/conn/7"]; got != "endpoint.client[0]" {
		t.Errorf("conn/7's peer = %q", got)
	}
	if got := m.world.peers["endpoint.client[1]"]; got != "listener.storage/conn/9" {
		t.Errorf("client[1]'s peer = %q", got)
	}
	if _, ok := m.world.peers["endpoint.client[2]"]; ok {
		t.Error("an endpoint without a connection has a peer")
	}
	if !strings.Contains(m.View(), "└ ⇄ endpoint.client[0]") {
		t.Errorf("the connection is not named by its peer:\n%s", m.View())
	}
	m.table.moveTo(m.table.rowIndex("endpoint.client[1]"))
	press(m, "p")
	if m.table.selected != "listener.storage/conn/9" {
		t.Errorf("p from client[1] selects %s", m.table.selected)
	}
	press(m, "p")
	if m.table.selected != "endpoint.client[1]" {
		t.Errorf("p back selects %s", m.table.selected)
	}
	// Under a folded listener, p unfolds it.
	m.table.moveTo(m.table.rowIndex("listener.storage"))
	press(m, " ")
	m.table.moveTo(m.table.rowIndex("endpoint.client[0]"))
	press(m, "p")
	if m.table.selected != "listener.storage/conn/7" {
		t.Errorf("p into a folded listener selects %s", m.table.selected)
	}
	m.table.moveTo(m.table.rowIndex("endpoint.client[2]"))
	press(m, "p")
	if !strings.Contains(m.footer.View(), "no peer known") {
		t.Errorf("footer after p without a peer: %q", m.footer.View())
	}
}

// t asks, y taints through Options.Taint, anything else cancels.
func TestTaintIsConfirmed(t *testing.T) {
	var tainted []string
	m := New(Options{NoColor: true, Now: fixedClock, Taint: func(a string) error { tainted = append(tainted, a); return nil }})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 24})
	m.Update(feedMsg{snapshot: &snapshot{objects: brokenObjects(), agent: fixtureAgent}, link: linkState{up: true}})
	m.table.moveTo(m.table.rowIndex("endpoint.client[2]"))
	press(m, "t")
	golden(t, "footer_taint_prompt_120", m.footer.View())
	press(m, "n")
	if len(tainted) != 0 || !strings.Contains(m.footer.View(), "cancelled") {
		t.Fatalf("n tainted %q; footer %q", tainted, m.footer.View())
	}
	press(m, "t")
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("y")})
	if cmd == nil {
		t.Fatal("y runs nothing")
	}
	m.Update(cmd())
	if !slices.Equal(tainted, []string{"endpoint.client[2]"}) || !strings.Contains(m.footer.View(), "endpoint.client[2] is tainted: the next plan replaces it") {
		t.Errorf("tainted %q; footer %q", tainted, m.footer.View())
	}
	m.table.moveTo(m.table.rowIndex("listener.storage/conn/7"))
	press(m, "t")
	if m.footer.prompt != "" || !strings.Contains(m.footer.View(), "accepted connection") {
		t.Errorf("a connection is offered for taint: %q", m.footer.View())
	}
}

func TestSparkline(t *testing.T) {
	if got := sparkline([]float32{0, 1, 2, 4, 8}, 0, 10); got != "▁▂▃▅█" {
		t.Errorf("sparkline = %q", got)
	}
	if got := sparkline([]float32{0, 0.5, 0}, 1, 10); got != "▁▅▁" {
		t.Errorf("loss against 100%% = %q", got)
	}
	if got := sparkline([]float32{1, 2, 3, 4}, 0, 2); got != "▆█" {
		t.Errorf("cut to the newest = %q", got)
	}
	var h probeHistory
	for i := range historyLen + 5 {
		h.add(&ProbeStats{Sent: uint64(10 * (i + 1)), Lost: uint64(i), Last: time.Duration(i)}, fixedNow)
	}
	if s := h.samples(&h.rtt); len(s) != historyLen || s[len(s)-1] != float32(historyLen+4) || s[0] != 5 {
		t.Errorf("ring: %d samples, first %v, last %v", len(s), s[0], s[len(s)-1])
	}
	if s := h.samples(&h.loss); s[len(s)-1] != 0.1 {
		t.Errorf("loss sample %v, want 1 of 10", s[len(s)-1])
	}
}

// Rows are coloured by their health, losses and rejects included, through
// the styles' renderer.
func TestRowsColouredByHealth(t *testing.T) {
	r := lipgloss.NewRenderer(nil)
	r.SetColorProfile(termenv.ANSI)
	m := newBrokenModel(160, 24)
	m.table.st = newStyles(r)
	m.table.moveTo(m.table.rowIndex("protection_domain.pd0"))
	lines := strings.Split(m.table.View(), "\n")
	line := func(addr string) string {
		for _, l := range lines {
			if strings.Contains(l, "  "+addr) {
				return l
			}
		}
		t.Fatalf("no row %s", addr)
		return ""
	}
	for addr, code := range map[string]string{
		"endpoint.client[1]": "\x1b[35m", // lost probes: magenta
		"listener.storage (": "\x1b[31m", // rejected a request: red
		"endpoint.client[3]": "\x1b[90m", // missing: dimmed
	} {
		if l := line(addr); !strings.HasPrefix(l, code) {
			t.Errorf("%s: %q, want it to start with %q", addr, l, code)
		}
	}
	if l := line("endpoint.client[0]"); strings.HasPrefix(l, "\x1b") {
		t.Errorf("a healthy row is coloured: %q", l)
	}
}
