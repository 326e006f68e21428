package command

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"sync"
	"time"
)

// Two hidden environment variables help measure plan, apply, destroy and
// the agent:
//
//	RDMAFORM_CPUPROFILE=PREFIX  writes a CPU profile to PREFIX.COMMAND.PID
//	                            (the agent's when it stops)
//	RDMAFORM_MEMPROFILE=PREFIX  writes an allocation profile to
//	                            PREFIX.COMMAND.PID when apply or destroy ends
//	RDMAFORM_TRACE=FILE         appends each phase's time since the start
//	                            (and every 100th progress line's) of apply
//	                            and destroy to FILE
const (
	memProfileEnv = "RDMAFORM_MEMPROFILE"
	cpuProfileEnv = "RDMAFORM_CPUPROFILE"
	traceEnv      = "RDMAFORM_TRACE"
)

// startProfile starts what the environment asks for and returns how to
// stop it. It also makes the garbage collector run less often (unless
// GOGC says otherwise): apply is short-lived and allocates mostly what it
// keeps, and collections took about a tenth of its CPU for a thousand
// objects, CPU the agent then lacks on a small host. The soft memory
// limit bounds the heap that lets grow (five times the live data) for
// very large states; it is well above what 10,000 endpoints keep live
// (about 0.3 GB), so it does not make collections more frequent there.
func startProfile(name string) func() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
		debug.SetMemoryLimit(1 << 30)
	}
	stopCPU := startCPUProfile(name)
	return func() {
		stopCPU()
		writeMemProfile(name)
	}
}

// writeMemProfile writes the allocation profile RDMAFORM_MEMPROFILE asks
// for, if any.
func writeMemProfile(name string) {
	prefix := os.Getenv(memProfileEnv)
	if prefix == "" {
		return
	}
	// The profile is as of the last collection, which GOGC=400 may have
	// left far behind: one now makes it count every allocation.
	runtime.GC()
	if f, err := os.Create(fmt.Sprintf("%s.%s.%d", prefix, name, os.Getpid())); err == nil {
		pprof.Lookup("allocs").WriteTo(f, 0)
		f.Close()
	}
}

// startCPUProfile starts the CPU profile RDMAFORM_CPUPROFILE asks for, if
// any, and returns how to stop it.
func startCPUProfile(name string) func() {
	stop := func() {}
	if prefix := os.Getenv(cpuProfileEnv); prefix != "" {
		if f, err := os.Create(fmt.Sprintf("%s.%s.%d", prefix, name, os.Getpid())); err == nil {
			if pprof.StartCPUProfile(f) == nil {
				stop = func() { pprof.StopCPUProfile(); f.Close() }
			} else {
				f.Close()
			}
		}
	}
	return stop
}

// phaseTrace writes phase times to the file RDMAFORM_TRACE names; the
// zero value (no file) does nothing.
type phaseTrace struct {
	mu    sync.Mutex
	w     io.WriteCloser
	start time.Time
	lines int
}

func newPhaseTrace(name string) *phaseTrace {
	t := &phaseTrace{start: time.Now()}
	if path := os.Getenv(traceEnv); path != "" {
		if f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err == nil {
			t.w = f
			t.mark(name + " starts")
		}
	}
	return t
}

func (t *phaseTrace) mark(phase string) {
	if t == nil || t.w == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	fmt.Fprintf(t.w, "%8.3fs %-45s alloc %5.1f MB, heap %5.1f MB, sys %5.1f MB, %d GCs\n", time.Since(t.start).Seconds(), phase,
		float64(m.TotalAlloc)/1e6, float64(m.HeapInuse)/1e6, float64(m.Sys)/1e6, m.NumGC)
}

func (t *phaseTrace) close() {
	if t != nil && t.w != nil {
		t.mark("end")
		t.w.Close()
	}
}

// progress wraps a progress writer so that every 100th line is traced.
func (t *phaseTrace) progress(w io.Writer) io.Writer {
	if t == nil || t.w == nil {
		return w
	}
	return progressCounter{w, t}
}

type progressCounter struct {
	w io.Writer
	t *phaseTrace
}

func (p progressCounter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	for _, c := range b {
		if c == '\n' {
			p.t.mu.Lock()
			p.t.lines++
			l := p.t.lines
			p.t.mu.Unlock()
			if l%100 == 0 {
				p.t.mark(fmt.Sprintf("%d progress lines", l))
			}
		}
	}
	return n, err
}
