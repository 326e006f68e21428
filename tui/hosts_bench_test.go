package tui

import (
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// fabricMany is n hosts of 100 objects each: a listener with 49
// connections accepted from the previous host's endpoints, and 50
// endpoints to the next host's listener, each probed.
func fabricMany(n int) (hosts []Host, objs map[string][]Object) {
	objs = make(map[string][]Object, n)
	ip := func(h int) string { return fmt.Sprintf("10.%d.%d.1", 78+h/250, h%250) }
	for h := range n {
		name := fmt.Sprintf(`agent.host["h%03d"]`, h)
		hosts = append(hosts, Host{Name: name, Target: ip(h) + ":7470"})
		prev, next := (h+n-1)%n, (h+1)%n
		listener := fmt.Sprintf(`listener.l["h%03d"]`, h)
		os := []Object{{Address: listener, Kind: KindListener, Status: StatusListening, LocalAddr: ip(h) + ":7471", Device: "rxe0", Port: 1,
			LastEvent: "listening", LastEventAt: ago(time.Hour)}}
		for j := range 49 {
			os = append(os, Object{Address: fmt.Sprintf("%s/conn/%d", listener, j+1), Parent: listener, Kind: KindConnection, Status: StatusEstablished,
				LocalAddr: ip(h) + ":7471", RemoteAddr: fmt.Sprintf("%s:%d", ip(prev), 50000+j), QPNum: uint32(j + 1), QPType: "RC", Device: "rxe0", Port: 1,
				ConnectedSince: ago(time.Hour), LastEvent: "ESTABLISHED", LastEventAt: ago(time.Hour)})
		}
		for j := range 50 {
			os = append(os, Object{Address: fmt.Sprintf(`endpoint.e["h%03d-%d"]`, h, j), Kind: KindEndpoint, Status: StatusEstablished,
				LocalAddr: fmt.Sprintf("%s:%d", ip(h), 50000+j), RemoteAddr: ip(next) + ":7471", QPNum: uint32(1000 + j), QPType: "RC", Device: "rxe0", Port: 1,
				ConnectedSince: ago(time.Hour), LastEvent: "ESTABLISHED", LastEventAt: ago(time.Hour),
				Probe: &ProbeStats{Last: 20 * time.Microsecond, Mean: 20 * time.Microsecond, Sent: 100}})
		}
		objs[name] = os
	}
	return hosts, objs
}

// BenchmarkFabricFrame is a fabric of 100 hosts × 100 objects (a minute
// of probe history each, one host unreachable) on a 160 × 56 screen: a
// frame is one host's batch of probe updates taken in, then the screen
// drawn. Goal: ≤ 5 ms a frame, ≤ 100 MB held.
func BenchmarkFabricFrame(b *testing.B) {
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	hosts, objs := fabricMany(100)
	m := New(Options{NoColor: true, Now: fixedClock, Hosts: hosts})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 50 + tableChrome + 4})
	for _, h := range hosts {
		m.Update(feedMsg{host: h.Name, snapshot: &snapshot{objects: objs[h.Name], agent: fabricAgent(1)}, link: linkState{up: true}})
	}
	probe := func(h string) []Update {
		var ups []Update
		for i, o := range objs[h] {
			if o.Probe != nil {
				p := *o.Probe
				p.Sent += 10
				o.Probe = &p
				objs[h][i] = o
				ups = append(ups, Update{Object: o})
			}
		}
		return ups
	}
	for _, s := range m.world.held { // a minute of probes: full rings
		if o, h := s.held, s.hist; h != nil {
			for s := range historyLen {
				p := *o.Probe
				p.Sent += uint64(10 * (s + 1))
				h.add(&p, fixedNow)
			}
		}
	}
	m.Update(feedMsg{host: hosts[7].Name, link: linkState{err: errSilent, downAt: fixedNow}})
	if m.world.shownN != 10_000 || len(m.world.peers) != 2*49*100 || !m.world.hostDown(hosts[7].Name) {
		b.Fatalf("%d objects, %d peers", m.world.shownN, len(m.world.peers))
	}
	runtime.GC()
	var loaded runtime.MemStats
	runtime.ReadMemStats(&loaded)
	heap := float64(loaded.HeapInuse-before.HeapInuse) / (1 << 20)
	b.Run("view", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = m.View()
		}
		reportFrame(b, 0, heap, "heap-inuse-MiB")
	})
	b.Run("batch+view", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		var ft frameTimes
		cpu := cpuTime()
		for b.Loop() {
			ft.lap()
			h := hosts[i%len(hosts)].Name
			i++
			if h == hosts[7].Name {
				continue
			}
			m.Update(feedMsg{host: h, updates: probe(h), link: linkState{up: true}})
			_ = m.View()
		}
		ft.lap()
		reportFrame(b, cpuTime()-cpu, heap, "heap-inuse-MiB")
		ft.report(b)
	})
	// Every object of every host that answers changes at once (a fabric
	// reconnecting): each host's batch, as its relay brings it, then one
	// View. Two rounds taken in turn, so that every frame's objects are
	// new: endpoints go reconnecting and back, every object's reconnects
	// and last event move.
	var rounds [2]map[string][]Update
	for v := range rounds {
		rounds[v] = make(map[string][]Update, len(hosts))
		for _, h := range hosts {
			for _, o := range objs[h.Name] {
				o.Reconnects += v + 1
				o.LastEventAt = o.LastEventAt.Add(time.Duration(v+1) * time.Second)
				if v == 1 && o.Kind == KindEndpoint {
					o.Status = StatusReconnecting
				}
				rounds[v][h.Name] = append(rounds[v][h.Name], Update{Object: o})
			}
		}
	}
	b.Run("all+view", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		var ft frameTimes
		cpu := cpuTime()
		for b.Loop() {
			ft.lap()
			for _, h := range hosts {
				if h.Name != hosts[7].Name {
					m.Update(feedMsg{host: h.Name, updates: rounds[i%2][h.Name], link: linkState{up: true}})
				}
			}
			_ = m.View()
			i++
		}
		ft.lap()
		reportFrame(b, cpuTime()-cpu, heap, "heap-inuse-MiB")
		ft.report(b)
	})
	runtime.KeepAlive(m)
	runtime.KeepAlive(rounds)
}

// frameGoal is the goal for a frame at 10,000 objects.
const frameGoal = 5 * time.Millisecond

// frameTimes records each frame's time elapsed, for the median and the
// slowest: on a shared host the mean is moved by the frames that waited
// for the CPU.
type frameTimes struct {
	last  time.Time
	times []time.Duration
}

// lap ends a frame, which began at the previous lap (or the first).
func (f *frameTimes) lap() {
	now := time.Now()
	if !f.last.IsZero() {
		f.times = append(f.times, now.Sub(f.last))
	}
	f.last = now
}

// report reports the median and the slowest frame.
func (f *frameTimes) report(b *testing.B) {
	if len(f.times) == 0 {
		return
	}
	slices.Sort(f.times)
	b.ReportMetric(float64(f.times[len(f.times)/2].Microseconds())/1000, "p50-ms/frame")
	b.ReportMetric(float64(f.times[len(f.times)-1].Microseconds())/1000, "max-ms/frame")
}

// reportFrame reports a frame's time elapsed, and its ratio to the goal
// (x-goal: at most 1 meets it), and, when measured, its CPU time
// (cpuTime: a busy host moves it less), and the heap held (in MiB, as
// unit says how it was read).
func reportFrame(b *testing.B, cpu time.Duration, heapMiB float64, unit string) {
	frame := b.Elapsed() / time.Duration(b.N)
	b.ReportMetric(float64(frame.Microseconds())/1000, "ms/frame")
	b.ReportMetric(float64(frame)/float64(frameGoal), "x-goal")
	if cpu > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/float64(b.N)/1000, "cpu-ms/frame")
	}
	b.ReportMetric(heapMiB, unit)
}
