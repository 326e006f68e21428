package config

import (
	"runtime/debug"
	"sync"
)

// loadGCPercent is the garbage collector's target (GOGC) while Load runs.
//
// Loading allocates about 30 KB per block (HCL's tokens and syntax tree,
// cty's values) and keeps about half of it. With the default GOGC=100 the
// collector runs about 15 times over that growing heap while 10,000
// endpoints load, each time marking all of it, for a fifth of the CPU
// time. A higher target for the duration of the load runs it about 5
// times; the process peaks higher (measured for one load of 10,000
// distinct endpoints: 0.20 GB resident with GOGC=100, 0.23 to 0.25 GB with
// 300) and is back to what the configuration holds at the next
// collection. The commands are short-lived and load once; the agent loads
// rarely.
const loadGCPercent = 300

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
