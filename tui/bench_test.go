package tui

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// BenchmarkView renders the whole screen with 10,000 objects and 50 rows
// on screen; the goal is at most 5 ms per View.
func BenchmarkView(b *testing.B) {
	m := newTestModel(160, 50+tableChrome+4, manyObjects(10_000)) // header 3 + footer 1
	if got := m.table.pageSize(); got != 50 {
		b.Fatalf("%d rows on screen, want 50", got)
	}
	press(m, "G") // the last page: rendering must not depend on the offset
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		_ = m.View()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/view")
}

// eventSource plays n status changes over a set of objects as fast as the
// relay takes them.
type eventSource struct {
	objects []Object
	n       int
	done    chan struct{}
}

func (s eventSource) Watch(ctx context.Context, snapshot func([]Object, AgentInfo), update func(Update)) error {
	snapshot(s.objects, fixtureAgent)
	statuses := []string{StatusEstablished, StatusDisconnected, StatusReconnecting}
	for i := range s.n {
		o := s.objects[i%len(s.objects)]
		o.Status = statuses[i%len(statuses)]
		o.LastEventAt = fixedNow.Add(time.Duration(i))
		update(Update{Object: o})
	}
	close(s.done)
	<-ctx.Done()
	return ctx.Err()
}

// BenchmarkIngest100kEvents feeds 100,000 status events over 10,000
// objects through the relay into the model, as the program would, and
// reports the cost per event and the peak heap while doing it.
func BenchmarkIngest100kEvents(b *testing.B) {
	const events = 100_000
	objs := manyObjects(10_000)
	var peak atomic.Uint64
	var batches int
	var baseline uint64 // the heap before ingesting: the objects themselves, the test binary
	var elapsed time.Duration
	for b.Loop() {
		b.StopTimer()
		m := New(Options{NoColor: true, Now: fixedClock, Frame: time.Second / 60})
		m.Update(tea.WindowSizeMsg{Width: 160, Height: 60})
		src := eventSource{objects: objs, n: events, done: make(chan struct{})}
		m.relay.src = src
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		baseline = ms.HeapAlloc
		stopSampling := samplePeakHeap(&peak)
		b.StartTimer()

		start := time.Now()
		m.relay.run()
		// As the program's re-armed command does (relay.next), wait for
		// something pending and pace to the frame, but stop once the source
		// has played everything, which next cannot know.
		var last time.Time
		for finished := false; !finished; {
			select {
			case <-m.relay.ready:
			case <-src.done:
				finished = true
			}
			time.Sleep(time.Until(last.Add(m.relay.frame)))
			last = time.Now()
			m.Update(m.relay.take())
			_ = m.View()
			batches++
		}
		elapsed += time.Since(start)

		b.StopTimer()
		stopSampling()
		m.Close()
		if len(m.world.objects) != len(objs) {
			b.Fatalf("%d objects after ingesting, want %d", len(m.world.objects), len(objs))
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(elapsed.Nanoseconds())/float64(b.N*events), "ns/event")
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(baseline)/(1<<20), "baseline-heap-MiB")
	b.ReportMetric(float64(batches)/float64(b.N), "frames/100k-events")
	b.ReportMetric(float64(b.N*events)/elapsed.Seconds(), "events/s")
}

// samplePeakHeap records the largest HeapAlloc seen every millisecond until
// stopped.
func samplePeakHeap(peak *atomic.Uint64) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		var ms runtime.MemStats
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); <-finished }
}
