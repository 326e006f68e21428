package planner

import (
	"context"
	"fmt"
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

// BenchmarkNoChangePlanScaling prints the figures the issue asks for: a
// no-change plan of 10,000 endpoints (goal 0.5 s) and the growth from 1,000
// (linear is 10), each the best of three plans.
// go test -run '^$' -bench NoChangePlanScaling -benchtime 1x ./planner/
func BenchmarkNoChangePlanScaling(b *testing.B) {
	measure := func(n int) (wall, cpu time.Duration) {
		cfg := load(b, scaleConfig(n))
		data, err := state.Encode(applied(b, mustPlan(b, cfg, nil, Options{})))
		if err != nil {
			b.Fatal(err)
		}
		for try := 0; try < 3; try++ {
			start, cpu0 := time.Now(), cpuTime()
			st, err := state.Decode(data, "bench")
			if err != nil {
				b.Fatal(err)
			}
			p, diags := Make(context.Background(), cfg, st, Options{Refresher: fakeRefresher{st: st}})
			if diags.HasErrors() || p.HasChanges() {
				b.Fatalf("plan: %v, changes %v", diags, p.HasChanges())
			}
			if w, c := time.Since(start), cpuTime()-cpu0; try == 0 || c < cpu {
				wall, cpu = w, c
			}
		}
		return wall, cpu
	}
	for i := 0; i < b.N; i++ {
		small, smallCPU := measure(1000)
		big, bigCPU := measure(10000)
		ratio := float64(bigCPU) / float64(smallCPU)
		b.ReportMetric(big.Seconds(), "s-at-10k")
		b.ReportMetric(ratio, "cpu-growth-10x")
		b.Logf("no-change plan incl. state decode and refresh: 1,000 endpoints %v wall (%v CPU), 10,000 endpoints %v wall (%v CPU); CPU growth %.1f for 10x (linear: 10; goal: 10,000 within 0.5 s)",
			small.Round(time.Millisecond), smallCPU.Round(time.Millisecond), big.Round(time.Millisecond), bigCPU.Round(time.Millisecond), ratio)
	}
}
