package agent

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// gcHeadroom is how far the heap may grow past the live data before a
// collection, for a small agent: the collector's target (GOGC) is set
// after each collection to give that much room, between 100 (Go's
// default) and 400.
//
// Bringing up a thousand endpoints allocates briskly while the live heap
// is a few tens of megabytes, and with GOGC=100 the agent collected dozens
// of times, taking CPU from the connections it makes. A fixed GOGC=400
// made the heap of an agent holding 10,000 objects five times its live
// data; with this headroom the largest agents collect as Go's default
// does.
const gcHeadroom = 128 << 20

// tuneGC keeps GOGC at gcHeadroom's share of the live heap, unless the
// environment sets GOGC. It returns how to stop.
func tuneGC() (stop func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	t := &gcTuner{}
	t.tune()
	t.arm()
	return func() { t.stopped.Store(true) }
}

type gcTuner struct {
	stopped atomic.Bool
	sample  [1]metrics.Sample
}

// arm makes tune run after the next collection: the finalizer of an
// object nothing references runs once a collection has found it so.
func (t *gcTuner) arm() {
	runtime.SetFinalizer(new(gcSentinel), func(*gcSentinel) {
		if !t.stopped.Load() {
			t.tune()
			t.arm()
		}
	})
}

// gcSentinel holds a pointer: the tiny allocator, which packs small
// pointer-free objects together, would keep its finalizer from running.
type gcSentinel struct{ _ *byte }

func (t *gcTuner) tune() {
	t.sample[0].Name = "/gc/heap/live:bytes"
	metrics.Read(t.sample[:])
	live := uint64(1)
	if t.sample[0].Value.Kind() == metrics.KindUint64 {
		live = max(live, t.sample[0].Value.Uint64())
	}
	debug.SetGCPercent(int(min(max(gcHeadroom*100/live, 100), 400)))
}
