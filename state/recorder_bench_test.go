package state

import (
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// BenchmarkRecord10k measures recording 10,000 completed changes one by
// one, each durable before the caller is told, into the local journal:
//
//	go test -run '^$' -bench Record10k -benchtime 3x ./state/
//
// The figure to read is ms/10k (the budget is 1000 ms).
// sequential: one goroutine, Record after Record (one fdatasync each).
// parallel-10: apply's default -parallelism of 10 workers, each calling
// Record as its changes complete; they share fdatasyncs.
// pipelined: one goroutine Submits and reports each change when its
// Pending is done, keeping up to 10 in flight.
func BenchmarkRecord10k(b *testing.B) {
	const n = 10000
	objs := make([]*Object, n)
	for i := range objs {
		objs[i] = testObject(b, "endpoint.e["+strconv.Itoa(i)+"]", i)
	}
	run := func(b *testing.B, record func(rec Recorder)) {
		var total time.Duration
		for range b.N {
			b.StopTimer()
			m := NewFilesystem(LocalOptions{Path: filepath.Join(b.TempDir(), DefaultPath)})
			m.RefreshState()
			rec, err := m.OpenRecorder()
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			start := time.Now()
			record(rec)
			total += time.Since(start)
			b.StopTimer()
			if err := rec.Close(); err != nil {
				b.Fatal(err)
			}
			if got := len(m.State().Objects); got != n {
				b.Fatalf("%d objects recorded, want %d", got, n)
			}
		}
		ms := float64(total.Milliseconds()) / float64(b.N)
		b.ReportMetric(ms, "ms/10k")
		b.Logf("10,000 durable records: %.0f ms", ms)
	}
	b.Run("sequential", func(b *testing.B) {
		run(b, func(rec Recorder) {
			for i := range n {
				if err := rec.Record(PutObject(objs[i])); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
	b.Run("parallel-10", func(b *testing.B) {
		run(b, func(rec Recorder) {
			var wg sync.WaitGroup
			for w := range 10 {
				wg.Go(func() {
					for i := w; i < n; i += 10 {
						if err := rec.Record(PutObject(objs[i])); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
		})
	})
	b.Run("pipelined", func(b *testing.B) {
		run(b, func(rec Recorder) {
			window := make(chan *Pending, 10)
			done := make(chan struct{})
			go func() {
				for p := range window {
					if err := p.Wait(); err != nil {
						b.Error(err)
					}
				}
				close(done)
			}()
			for i := range n {
				window <- rec.Submit(PutObject(objs[i]))
			}
			close(window)
			<-done
		})
	})
}
