package planner

import (
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/state"
)

// scaleConfig is one protection domain, one listener and n endpoints using
// both, as examples/loopback with count = n.
func scaleConfig(n int) string {
	return strings.Replace(loopback, "count   = 2", fmt.Sprintf("count   = %d", n), 1)
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchNoChangePlan times a no-change plan of n endpoints: the state
// decoded from its file form (withDecode), the refresh through a fake
// agent answering in memory, the diff. Loading the configuration is
// excluded (config has its own benchmarks). It reports CPU time per plan
// beside wall time, since wall time suffers when other work shares the
// machine.
func benchNoChangePlan(b *testing.B, n int, withDecode bool) {
	cfg := load(b, scaleConfig(n))
	st := applied(b, mustPlan(b, cfg, nil, Options{}))
	data, err := state.Encode(st)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		if withDecode {
			if st, err = state.Decode(data, "bench"); err != nil {
				b.Fatal(err)
			}
		}
		p, diags := Make(context.Background(), cfg, st, Options{Refresher: fakeRefresher{st: st}})
		if diags.HasErrors() || p.HasChanges() {
			b.Fatalf("plan: %v, changes %v", diags, p.HasChanges())
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkNoChangePlan: go test -run '^$' -bench NoChangePlan ./planner/
func BenchmarkNoChangePlan(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("endpoints=%d", n), func(b *testing.B) { benchNoChangePlan(b, n, true) })
		b.Run(fmt.Sprintf("endpoints=%d/planner-only", n), func(b *testing.B) { benchNoChangePlan(b, n, false) })
	}
}

// TestNoChangePlanScaling prints the figures the issue asks for (10,000
// endpoints within 0.5 s, linear growth). Timing on a shared machine is
// unreliable, so it runs only with RDMAFORM_TIMING=1 and then fails on a
// growth ratio above 20 for ten times the endpoints (quadratic would be
// 100) or on more than 0.5 s of CPU for 10,000.
func TestNoChangePlanScaling(t *testing.T) {
	if os.Getenv("RDMAFORM_TIMING") == "" {
		t.Skip("timing test: set RDMAFORM_TIMING=1")
	}
	measure := func(n int) (wall, cpu time.Duration) {
		r := testing.Benchmark(func(b *testing.B) { benchNoChangePlan(b, n, true) })
		return time.Duration(r.NsPerOp()), time.Duration(r.Extra["cpu-ns/op"])
	}
	small, smallCPU := measure(1000)
	big, bigCPU := measure(10000)
	ratio := float64(bigCPU) / float64(smallCPU)
	t.Logf("no-change plan incl. state decode and refresh: 1,000 endpoints %v wall (%v CPU), 10,000 endpoints %v wall (%v CPU); CPU ratio %.1f (linear: 10)",
		small.Round(time.Millisecond), smallCPU.Round(time.Millisecond), big.Round(time.Millisecond), bigCPU.Round(time.Millisecond), ratio)
	if ratio > 20 {
		t.Errorf("CPU growth ratio %.1f for 10x the endpoints: worse than linear", ratio)
	}
	if bigCPU > 500*time.Millisecond {
		t.Errorf("10,000 endpoints took %v of CPU, over the 0.5 s budget", bigCPU)
	}
}
