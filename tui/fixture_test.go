package tui

import (
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// fixedNow is the clock of every test that renders, so ages do not move.
var fixedNow = time.Date(2025, 3, 4, 10, 0, 0, 0, time.UTC)

func fixedClock() time.Time { return fixedNow }

func ago(d time.Duration) time.Time { return fixedNow.Add(-d) }

// fixtureAgent is the agent the fixtures come from.
var fixtureAgent = AgentInfo{
	Socket:    "/run/rdmaform/agent.sock",
	PID:       4242,
	StartedAt: ago(2*time.Hour + 5*time.Minute),
	Devices: []DeviceInfo{
		{Name: "rxe0", Ports: []PortInfo{{Num: 1, State: "ACTIVE"}}},
		{Name: "mlx5_0", Ports: []PortInfo{{Num: 1, State: "ACTIVE"}, {Num: 2, State: "DOWN"}}},
	},
}

// fixtureObjects is a small fabric with one object in each interesting
// state: a listener with accepted connections, a degraded probe, a
// rejected and a failed endpoint.
func fixtureObjects() []Object {
	cfg := []Setting{{"protection_domain", "protection_domain.pd0"}, {"qp_type", "RC"}, {"max_send_wr", "128"}, {"max_recv_wr", "128"}, {"retry_count", "7"}}
	return []Object{
		{Address: "protection_domain.pd0", Kind: KindProtectionDomain, Status: "created", Device: "rxe0", Port: 1,
			LastEvent: "created", LastEventAt: ago(2 * time.Hour)},
		{Address: "listener.storage", Kind: KindListener, Status: StatusListening, LocalAddr: "10.77.0.1:7471", Device: "rxe0", Port: 1,
			LastEvent: "listening", LastEventAt: ago(2 * time.Hour), Config: []Setting{{"protection_domain", "protection_domain.pd0"}, {"port", "7471"}}},
		{Address: "listener.storage/conn/1", Parent: "listener.storage", Kind: KindConnection, Status: StatusEstablished,
			LocalAddr: "10.77.0.1:7471", RemoteAddr: "10.77.0.2:40001", QPNum: 301, QPType: "RC", Device: "rxe0", Port: 1,
			ConnectedSince: ago(61 * time.Minute), LastEvent: "ESTABLISHED", LastEventAt: ago(61 * time.Minute)},
		{Address: "listener.storage/conn/2", Parent: "listener.storage", Kind: KindConnection, Status: StatusDisconnected,
			LocalAddr: "10.77.0.1:7471", RemoteAddr: "10.77.0.3:40002", QPNum: 302, QPType: "RC", Device: "rxe0", Port: 1,
			LastEvent: "DISCONNECTED", LastEventAt: ago(12 * time.Second)},
		{Address: "endpoint.client[0]", Kind: KindEndpoint, Status: StatusEstablished, LocalAddr: "10.77.0.2:50000", RemoteAddr: "10.77.0.1:7471",
			QPNum: 1000, QPType: "RC", Device: "rxe0", Port: 1, ConnectedSince: ago(5*time.Minute + 3*time.Second), Reconnects: 2,
			LastEvent: "ESTABLISHED", LastEventAt: ago(5*time.Minute + 3*time.Second), Config: cfg,
			Probe: &ProbeStats{Last: 12300 * time.Nanosecond, Min: 9 * time.Microsecond, Mean: 11 * time.Microsecond, Max: 40 * time.Microsecond, Sent: 3000, Lost: 3}},
		{Address: "endpoint.client[1]", Kind: KindEndpoint, Status: StatusEstablished, LocalAddr: "10.77.0.2:50001", RemoteAddr: "10.77.0.1:7471",
			QPNum: 1001, QPType: "RC", Device: "rxe0", Port: 1, ConnectedSince: ago(time.Hour),
			LastEvent: "ESTABLISHED", LastEventAt: ago(time.Hour), Config: cfg,
			Probe: &ProbeStats{Last: 4 * time.Millisecond, Min: 10 * time.Microsecond, Mean: 900 * time.Microsecond, Max: 9 * time.Millisecond, Sent: 3000, Lost: 41, Degraded: true}},
		{Address: "endpoint.client[2]", Kind: KindEndpoint, Status: StatusRejected, LocalAddr: "10.77.0.2:50002", RemoteAddr: "10.77.0.9:7471",
			QPType: "RC", Device: "rxe0", Port: 1, Reconnects: 7, LastEvent: "REJECTED", LastEventAt: ago(3 * time.Second), Config: cfg,
			LastError: &ErrorInfo{Call: "rdma_connect", Errno: 111, ErrnoName: "ECONNREFUSED", Message: "rdma_connect: REJECTED (reason 8: invalid service ID: no listener on that port)", At: ago(3 * time.Second)},
			History: []Event{
				{At: ago(10 * time.Second), Name: "ADDR_RESOLVED"},
				{At: ago(9 * time.Second), Name: "ROUTE_RESOLVED"},
				{At: ago(3 * time.Second), Name: "REJECTED", Detail: "status 28"},
			}},
		{Address: "endpoint.client[10]", Kind: KindEndpoint, Status: StatusError, Device: "mlx5_0", Port: 2, QPType: "RC",
			LastEvent: "ADDR_ERROR", LastEventAt: ago(40 * time.Second), Config: cfg,
			LastError: &ErrorInfo{Call: "rdma_resolve_addr", Errno: 19, ErrnoName: "ENODEV", Message: "rdma_resolve_addr: no such device (ENODEV)", At: ago(40 * time.Second)}},
		{Address: `endpoint.backup["east"]`, Kind: KindEndpoint, Status: StatusConnecting, LocalAddr: "10.77.0.2:50100", RemoteAddr: "10.77.1.1:7471",
			QPType: "RC", Device: "mlx5_0", Port: 1, Reconnects: 1, LastEvent: "ROUTE_RESOLVED", LastEventAt: ago(time.Second), Config: cfg},
	}
}

// manyObjects makes n endpoints for the scale tests and benchmarks.
func manyObjects(n int) []Object {
	objs := make([]Object, n)
	for i := range objs {
		objs[i] = Object{
			Address: fmt.Sprintf("endpoint.client[%d]", i), Kind: KindEndpoint, Status: StatusEstablished,
			LocalAddr: fmt.Sprintf("10.77.%d.%d:50000", i/250, i%250), RemoteAddr: "10.77.0.1:7471",
			QPNum: uint32(1000 + i), QPType: "RC", Device: "rxe0", Port: 1, ConnectedSince: ago(time.Duration(i) * time.Second),
			LastEvent: "ESTABLISHED", LastEventAt: ago(time.Duration(i) * time.Second),
			Probe: &ProbeStats{Last: 11 * time.Microsecond, Min: 9 * time.Microsecond, Mean: 11 * time.Microsecond, Max: 31 * time.Microsecond, Sent: 1000},
		}
	}
	return objs
}

// newTestModel makes a colourless model at a fixed time, sized and fed a
// snapshot, without a program or a running relay.
func newTestModel(width, height int, objs []Object) *Model {
	m := New(Options{NoColor: true, Now: fixedClock, Target: "/run/rdmaform/agent.sock"})
	m.Update(tea.WindowSizeMsg{Width: width, Height: height})
	m.Update(feedMsg{snapshot: &snapshot{objects: objs, agent: fixtureAgent}, link: linkState{up: true}})
	return m
}

// press sends keys to a model as the program would.
func press(m *Model, keys ...string) {
	for _, k := range keys {
		var msg tea.KeyMsg
		switch k {
		case "enter":
			msg = tea.KeyMsg{Type: tea.KeyEnter}
		case "esc":
			msg = tea.KeyMsg{Type: tea.KeyEsc}
		case "tab":
			msg = tea.KeyMsg{Type: tea.KeyTab}
		case "down":
			msg = tea.KeyMsg{Type: tea.KeyDown}
		case "up":
			msg = tea.KeyMsg{Type: tea.KeyUp}
		case "backspace":
			msg = tea.KeyMsg{Type: tea.KeyBackspace}
		case " ":
			msg = tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
		default:
			msg = tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
		}
		m.Update(msg)
	}
}

func itoa(i int) string { return fmt.Sprint(i) }
