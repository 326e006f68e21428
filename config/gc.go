package config

import (
	"runtime/debug"
	"sync"
)

// loadGCPercent is the garbage collector's target (GOGC) while Load runs.
//
// Loading allocates about 30 KB per block (HCL's tokens and syntax tree,
// cty's values) and keeps most of the syntax tree and the values. With the
// default GOGC=100 the collector runs 8 times while 10,000 endpoints load,
// each time marking the whole growing heap; with 400, 3 or 4 times, for
// 10 to 15% less CPU time. The process peaks higher (one load of 10,000
// distinct endpoints, measured: 0.24 GB resident with GOGC=100, 0.24 to
// 0.29 GB with 400; before this package cut its allocations, 0.23 to 0.25
// GB with GOGC=100) and is back to what the configuration holds at the
// next collection. The commands are short-lived and load once; the agent
// loads rarely.
const loadGCPercent = 400

var (
	gcMu    sync.Mutex
	gcLoads int // loads running
	gcPrev  int // the setting to restore when the last one returns
)

// raiseGCPercent sets loadGCPercent until the returned function is called,
// unless the process asked for more (or turned the collector off).
// Concurrent loads share the raise; the last one restores the setting.
func raiseGCPercent() (restore func()) {
	gcMu.Lock()
	defer gcMu.Unlock()
	if gcLoads == 0 {
		gcPrev = debug.SetGCPercent(loadGCPercent)
		if gcPrev < 0 || gcPrev >= loadGCPercent {
			debug.SetGCPercent(gcPrev)
		}
	}
	gcLoads++
	return func() {
		gcMu.Lock()
		defer gcMu.Unlock()
		gcLoads--
		if gcLoads == 0 && gcPrev >= 0 && gcPrev < loadGCPercent {
			debug.SetGCPercent(gcPrev)
		}
	}
}
