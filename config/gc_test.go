package config

import (
	"runtime/debug"
	"testing"
)

func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

func TestRaiseGCPercent(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	restore1 := raiseGCPercent()
	restore2 := raiseGCPercent() // a concurrent load
	if got := gcPercent(); got != loadGCPercent {
		t.Fatalf("during loads GOGC = %d, want %d", got, loadGCPercent)
	}
	restore1()
	if got := gcPercent(); got != loadGCPercent {
		t.Fatalf("with one load still running GOGC = %d, want %d", got, loadGCPercent)
	}
	restore2()
	if got := gcPercent(); got != 100 {
		t.Fatalf("after the loads GOGC = %d, want 100 back", got)
	}
	for _, set := range []int{-1, 1000} {
		debug.SetGCPercent(set)
		restore := raiseGCPercent()
		if got := gcPercent(); got != set {
			t.Errorf("GOGC=%d was changed to %d", set, got)
		}
		restore()
		if got := gcPercent(); got != set {
			t.Errorf("GOGC=%d became %d", set, got)
		}
	}
}
