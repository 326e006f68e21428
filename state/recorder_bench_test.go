package state

import (
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/state/etcdtest"
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

// BenchmarkRecord10kEtcd is BenchmarkRecord10k against a real etcd server
// on loopback (each transaction is fsync'd by etcd's WAL):
//
//	go test -run '^$' -bench Record10kEtcd -benchtime 1x ./state/
func BenchmarkRecord10kEtcd(b *testing.B) {
	const n = 10000
	ep := etcdtest.Start(b)
	objs := make([]*Object, n)
	for i := range objs {
		objs[i] = testObject(b, "endpoint.e["+strconv.Itoa(i)+"]", i)
	}
	round := 0
	run := func(b *testing.B, workers int) {
		var total time.Duration
		for range b.N {
			round++
			m := newTestEtcd(b, ep, "/bench"+strconv.Itoa(round))
			m.RefreshState()
			rec, err := m.OpenRecorder()
			if err != nil {
				b.Fatal(err)
			}
			start := time.Now()
			var wg sync.WaitGroup
			for w := range workers {
				wg.Go(func() {
					for i := w; i < n; i += workers {
						if err := rec.Record(PutObject(objs[i])); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			total += time.Since(start)
			if err := rec.Close(); err != nil {
				b.Fatal(err)
			}
			if got := len(m.State().Objects); got != n {
				b.Fatalf("%d objects recorded, want %d", got, n)
			}
		}
		ms := float64(total.Milliseconds()) / float64(b.N)
		b.ReportMetric(ms, "ms/10k")
		b.Logf("10,000 durable records with %d workers: %.0f ms", workers, ms)
	}
	b.Run("parallel-10", func(b *testing.B) { run(b, 10) })
	b.Run("parallel-100", func(b *testing.B) { run(b, 100) })
}
