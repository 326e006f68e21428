package tui

import (
	"errors"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// The three hosts of the fabric fixtures: two storage servers with a
// listener each, one compute host with an endpoint to each and one
// rejected.
const (
	hostCompute = "agent.compute"
	hostS1      = `agent.storage["s1"]`
	hostS2      = `agent.storage["s2"]`
)

func fabricHostList(sources map[string]Source) []Host {
	var hosts []Host
	for i, n := range []string{hostCompute, hostS1, hostS2} {
		hosts = append(hosts, Host{Name: n, Target: "10.77.1." + itoa([]int{3, 1, 2}[i]) + ":7470", Source: sources[n]})
	}
	return hosts
}

func fabricObjects() map[string][]Object {
	probe := func(last time.Duration, sent uint64) *ProbeStats {
		return &ProbeStats{Last: last, Min: 9 * time.Microsecond, Mean: last, Max: 80 * time.Microsecond, Sent: sent}
	}
	return map[string][]Object{
		hostCompute: {
			{Address: `endpoint.blocks["s1"]`, Kind: KindEndpoint, Status: StatusEstablished, LocalAddr: "10.77.1.3:50001", RemoteAddr: "10.77.1.1:7471",
				QPNum: 1001, QPType: "RC", Device: "rxe0", Port: 1, ConnectedSince: ago(10 * time.Minute), LastEvent: "ESTABLISHED", LastEventAt: ago(10 * time.Minute),
				Probe: probe(21*time.Microsecond, 600)},
			{Address: `endpoint.blocks["s2"]`, Kind: KindEndpoint, Status: StatusEstablished, LocalAddr: "10.77.1.3:50002", RemoteAddr: "10.77.1.2:7471",
				QPNum: 1002, QPType: "RC", Device: "rxe0", Port: 1, ConnectedSince: ago(10 * time.Minute), LastEvent: "ESTABLISHED", LastEventAt: ago(10 * time.Minute),
				Probe: probe(35*time.Microsecond, 600)},
			{Address: "endpoint.replica", Kind: KindEndpoint, Status: StatusRejected, LocalAddr: "10.77.1.3:50003", RemoteAddr: "10.77.1.2:7472",
				QPType: "RC", Device: "rxe0", Port: 1, Reconnects: 4, LastEvent: "REJECTED", LastEventAt: ago(3 * time.Second),
				LastError: &ErrorInfo{Call: "rdma_connect", Errno: 111, ErrnoName: "ECONNREFUSED", At: ago(3 * time.Second)}},
		},
		hostS1: {
			{Address: `listener.blocks["s1"]`, Kind: KindListener, Status: StatusListening, LocalAddr: "10.77.1.1:7471", Device: "rxe0", Port: 1,
				LastEvent: "listening", LastEventAt: ago(11 * time.Minute)},
			{Address: `listener.blocks["s1"]/conn/1`, Parent: `listener.blocks["s1"]`, Kind: KindConnection, Status: StatusEstablished,
				LocalAddr: "10.77.1.1:7471", RemoteAddr: "10.77.1.3:50001", QPNum: 301, QPType: "RC", Device: "rxe0", Port: 1,
				ConnectedSince: ago(10 * time.Minute), LastEvent: "ESTABLISHED", LastEventAt: ago(10 * time.Minute)},
		},
		hostS2: {
			{Address: `listener.blocks["s2"]`, Kind: KindListener, Status: StatusListening, LocalAddr: "10.77.1.2:7471", Device: "rxe0", Port: 1,
				LastEvent: "listening", LastEventAt: ago(11 * time.Minute)},
			{Address: `listener.blocks["s2"]/conn/4`, Parent: `listener.blocks["s2"]`, Kind: KindConnection, Status: StatusEstablished,
				LocalAddr: "10.77.1.2:7471", RemoteAddr: "10.77.1.3:50002", QPNum: 412, QPType: "RC", Device: "rxe0", Port: 1,
				ConnectedSince: ago(10 * time.Minute), LastEvent: "ESTABLISHED", LastEventAt: ago(10 * time.Minute)},
		},
	}
}

func fabricAgent(pid int) AgentInfo {
	return AgentInfo{PID: pid, StartedAt: ago(time.Hour), Devices: []DeviceInfo{{Name: "rxe0", Ports: []PortInfo{{Num: 1, State: "ACTIVE"}}}}}
}

// newFabricModel is a three-host fabric's monitor, each host's snapshot
// fed as its relay would, then a few probe rounds of the compute host's
// endpoints for their sparklines.
func newFabricModel(width, height int) *Model {
	m := New(Options{NoColor: true, Now: fixedClock, Hosts: fabricHostList(nil)})
	m.Update(tea.WindowSizeMsg{Width: width, Height: height})
	objs := fabricObjects()
	for i, n := range []string{hostCompute, hostS1, hostS2} {
		m.Update(feedMsg{host: n, snapshot: &snapshot{objects: objs[n], agent: fabricAgent(100 + i)}, link: linkState{up: true}})
	}
	for round := range 8 {
		var ups []Update
		for _, o := range fabricObjects()[hostCompute][:2] {
			o.Probe.Sent += uint64(10 * (round + 1))
			o.Probe.Last += time.Duration(round%4) * 9 * time.Microsecond
			ups = append(ups, Update{Object: o})
		}
		m.Update(feedMsg{host: hostCompute, updates: ups, link: linkState{up: true}})
	}
	return m
}

// errSilent is what the CLI's host source says of a host the heartbeat
// found silent.
var errSilent = errors.New("no answer within 2s (the heartbeat's bound): the host may be down or cut off")

func TestGoldenFabric(t *testing.T) {
	for _, width := range []int{160, 120, 80} {
		m := newFabricModel(width, 16)
		name := "fabric_" + itoa(width) + "x16"
		golden(t, name, m.View())
		checkBox(t, m.View(), width, 16)

		m.Update(feedMsg{host: hostS2, link: linkState{err: errSilent, cause: errSilent, retryAt: fixedNow.Add(time.Second), downAt: fixedNow}})
		golden(t, name+"_unreachable", m.View())
		checkBox(t, m.View(), width, 16)
	}
	// The detail of an unreachable host's row says it is the last picture.
	m := newFabricModel(120, 30)
	m.Update(feedMsg{host: hostS2, link: linkState{err: errSilent, downAt: fixedNow}})
	m.table.moveTo(m.table.rowIndex(`listener.blocks["s2"]/conn/4`))
	press(m, "enter")
	golden(t, "fabric_detail_unreachable_120x30", m.View())
	checkBox(t, m.View(), 120, 30)
	if !strings.Contains(m.View(), `the last picture of agent.storage["s2"], of 10:00:00: it does not answer`) {
		t.Errorf("the detail does not say the row is the last picture:\n%s", m.View())
	}
}

// The rows carry their host, grouped by host in the hosts' order; h
// orders them by the sort alone.
func TestFabricGroupsByHost(t *testing.T) {
	m := newFabricModel(160, 30)
	var hosts []string
	for _, r := range m.table.rows {
		hosts = append(hosts, r.obj.Host)
	}
	want := []string{hostCompute, hostCompute, hostCompute, hostS1, hostS1, hostS2, hostS2}
	if strings.Join(hosts, " ") != strings.Join(want, " ") {
		t.Errorf("rows' hosts %q, want %q", hosts, want)
	}
	press(m, "h")
	if first := m.table.rows[0].obj; first.Kind != KindListener {
		t.Errorf("ungrouped, the first row is %s of %s, want a listener (by kind, then address)", first.Address, first.Host)
	}
	if !strings.Contains(m.View(), "h group by host") {
		t.Errorf("the footer does not offer h:\n%s", m.View())
	}
	if s := newTestModel(160, 30, fixtureObjects()).View(); strings.Contains(s, "group by host") || strings.Contains(s, "HOST") {
		t.Errorf("one agent's monitor offers grouping or a HOST column:\n%s", s)
	}
}

// p goes from a listener's connection on one host to the endpoint on
// another, and back; the connection is named by that endpoint.
func TestFabricPeerJumpAcrossHosts(t *testing.T) {
	m := newFabricModel(160, 30)
	conn := `listener.blocks["s2"]/conn/4`
	m.table.moveTo(m.table.rowIndex(conn))
	if got := m.table.rows[m.table.cursor].label(); got != ` └ ⇄ endpoint.blocks["s2"]` {
		t.Errorf("the connection's row reads %q, want it named by its endpoint", got)
	}
	press(m, "p")
	if o := m.table.selectedObject(); o.Address != `endpoint.blocks["s2"]` || o.Host != hostCompute {
		t.Fatalf("p from %s selected %s on %s, want the endpoint on %s", conn, o.Address, o.Host, hostCompute)
	}
	press(m, "p")
	if o := m.table.selectedObject(); o.Address != conn || o.Host != hostS2 {
		t.Errorf("p from the endpoint selected %s on %s, want %s on %s", o.Address, o.Host, conn, hostS2)
	}
	press(m, "enter")
	if v := m.View(); !strings.Contains(v, `endpoint.blocks["s2"] on agent.compute (p goes to it)`) {
		t.Errorf("the detail does not name the peer:\n%s", v)
	}
}

// A declared object of a host that does not answer is not said to be
// missing from its agent: the host does not say.
func TestFabricDeclaredOfUnreachableHost(t *testing.T) {
	m := newFabricModel(160, 30)
	m.Update(declaredMsg{list: []Declared{{Address: `listener.extra`, Kind: KindListener, Host: hostS2, InState: true, InConfig: true}}})
	m.Update(feedMsg{host: hostS2, link: linkState{err: errSilent, downAt: fixedNow}})
	o := m.world.object("listener.extra")
	if o == nil || o.LastEvent != "host unreachable" || o.Host != hostS2 {
		t.Fatalf("the declared object of the unreachable host: %+v", o)
	}
}

// A host whose source goes errSilent is shown unreachable, its rows kept,
// while another host's changes go on being shown; once it answers again
// its rows are live. The sources are the tests' fakes, run by the
// relays as the program runs them.
func TestFabricHostUnreachableWhileOthersUpdate(t *testing.T) {
	objs := fabricObjects()
	sources := map[string]Source{}
	fakes := map[string]*fakeSource{}
	for n, os := range objs {
		f := newFakeSource(os)
		sources[n], fakes[n] = f, f
	}
	m := New(Options{NoColor: true, Hosts: fabricHostList(sources), MinBackoff: 10 * time.Millisecond, MaxBackoff: 10 * time.Millisecond, Frame: time.Millisecond})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 30})
	msgs := make(chan tea.Msg, 64)
	deliver := func(cmd tea.Cmd) {
		if cmd == nil {
			return
		}
		go func() {
			if msg := cmd(); msg != nil {
				msgs <- msg
			}
		}()
	}
	for _, r := range m.hostRelays {
		r.run()
		deliver(r.next)
	}
	t.Cleanup(m.Close)
	waitUntil := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.After(60 * time.Second)
		for !ok() {
			select {
			case msg := <-msgs:
				_, cmd := m.Update(msg)
				deliver(cmd)
			case <-deadline:
				t.Fatalf("not %s after 60s:\n%s", what, m.View())
			}
		}
	}
	waitUntil("every host synced", func() bool {
		return m.world.shownN == 7 && !strings.Contains(m.View(), "connecting")
	})

	fakes[hostS2].refuse.Store(true)
	fakes[hostS2].drop <- errSilent
	waitUntil("storage s2 unreachable", func() bool {
		return strings.Contains(m.View(), `agent.storage["s2"] unreachable`) && m.world.hostDown(hostS2)
	})
	if o := m.world.object(`listener.blocks["s2"]/conn/4`); o == nil || !m.table.rowDim(o) || healthOf(o) != healthUnknown {
		t.Errorf("the unreachable host's rows are not kept dimmed, of unknown health: %+v", o)
	}
	press(m, "!")
	if v := m.View(); !strings.Contains(v, `listener.blocks["s2"]`) || strings.Contains(v, `listener.blocks["s1"]`) {
		t.Errorf("! does not show the unreachable host's rows alone with the problems:\n%s", v)
	}
	press(m, "!")
	o := objs[hostCompute][2]
	o.LastEvent, o.Reconnects = "ROUTE_RESOLVED", 5
	go fakes[hostCompute].send(Update{Object: o})
	waitUntil("the compute host's change shown", func() bool {
		return m.world.object("endpoint.replica").Reconnects == 5
	})
	if m.table.rowDim(m.world.object("endpoint.replica")) {
		t.Errorf("a row of a host that answers is dimmed")
	}

	fakes[hostS2].refuse.Store(false)
	waitUntil("storage s2 back", func() bool {
		return !m.world.hostDown(hostS2) && !strings.Contains(m.View(), "unreachable")
	})
}

// Wide enough, the endpoints' recent round trips show as a sparkline.
func TestGoldenFabricTrend(t *testing.T) {
	m := newFabricModel(200, 12)
	golden(t, "fabric_200x12", m.View())
	checkBox(t, m.View(), 200, 12)
	if !strings.Contains(m.View(), "RTT TREND") {
		t.Errorf("no RTT TREND column at 200 columns:\n%s", m.View())
	}
}
