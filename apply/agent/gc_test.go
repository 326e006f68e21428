package agent

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// gcPercent reads the collector's target without changing it.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// waitGCPercent collects and waits for the tuner to set want.
func waitGCPercent(t *testing.T, ok func(int) bool) int {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		runtime.GC()
		if p := gcPercent(); ok(p) || time.Now().After(deadline) {
			return p
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A small heap gets GOGC 400; one of 64 MiB of live data about 200 (128
// MiB of headroom); after stop, collections change nothing.
func TestGCTunerGivesTheHeapItsHeadroom(t *testing.T) {
	t.Setenv("GOGC", "")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	stop := tuneGC()
	if p := waitGCPercent(t, func(p int) bool { return p == 400 }); p != 400 {
		t.Fatalf("GOGC %d with a small heap, want 400", p)
	}
	live := make([]byte, 64<<20)
	for i := range live {
		live[i] = 1
	}
	if p := waitGCPercent(t, func(p int) bool { return p < 300 }); p < 150 || p > 250 {
		t.Fatalf("GOGC %d with 64 MiB live, want about 200", p)
	}
	runtime.KeepAlive(live)
	stop()
	debug.SetGCPercent(123)
	runtime.GC()
	runtime.GC()
	time.Sleep(20 * time.Millisecond)
	if p := gcPercent(); p != 123 {
		t.Fatalf("the stopped tuner set GOGC %d", p)
	}
}
