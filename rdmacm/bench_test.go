//go:build linux && cgo && integration

package rdmacm

import (
	"context"
	"sort"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/rdmacm/cmtime"
)

// BenchmarkEstablish1000 establishes 1,000 RC connections to one listener
// through this binding and, in the same run, times cmtime -c 1000 against
// the same device; it reports both and the ratio (goal: at most 1.25). The
// two alternate for several rounds (RDMAFORM_BENCH_ROUNDS, default 3) and
// the medians are compared, so a burst of load on a shared machine skews
// one round, not the figure.
func BenchmarkEstablish1000(b *testing.B) {
	const n = 1000
	rounds := envInt("RDMAFORM_BENCH_ROUNDS", 3)
	for i := 0; i < b.N; i++ {
		var ours, refs []time.Duration
		for r := 0; r < rounds; r++ {
			cpu0 := processCPU()
			d := establishOnce(b, n)
			ourCPU := processCPU() - cpu0
			ref, phases, refCPU := cmtimeRun(b, n)
			b.Logf("round %d: rdmaform %v (CPU %v), cmtime %v (CPU %v; %s)", r+1,
				d.Round(time.Millisecond), ourCPU.Round(time.Millisecond),
				ref.Round(time.Millisecond), refCPU.Round(time.Millisecond), phases)
			ours, refs = append(ours, d), append(refs, ref)
		}
		o, c := median(ours), median(refs)
		b.ReportMetric(o.Seconds(), "rdmaform-s")
		b.ReportMetric(c.Seconds(), "cmtime-s")
		b.ReportMetric(o.Seconds()/c.Seconds(), "ratio")
		b.Logf("1000 RC connections from nothing to established, median of %d rounds: rdmaform %v, cmtime %v, ratio %.2f (goal <= 1.25)",
			rounds, o.Round(time.Millisecond), c.Round(time.Millisecond), o.Seconds()/c.Seconds())
	}
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// acceptWorkers take connect requests in parallel: each builds the
// request's QP before accepting it.
var acceptWorkers = envInt("RDMAFORM_ACCEPT_WORKERS", 4)

func establishOnce(b *testing.B, n int) time.Duration {
	// The passive and active sides each have their own channel and event
	// loop, as cmtime's server and client are two processes.
	ch, serverCh := newChannel(b), newChannel(b)
	qp := QPInit{MaxSendWR: 1, MaxRecvWR: 1, MaxSendSGE: 1, MaxRecvSGE: 1}
	l, port := listen(b, serverCh, testAddr(b), PSTCP, &qp)
	ctx := ctxFor(b, 5*time.Minute)
	var accepted atomic.Int64
	var lastAccept atomic.Int64
	for w := 0; w < acceptWorkers; w++ {
		go func() {
			for {
				req, _, err := l.GetRequest(ctx)
				if err != nil {
					return
				}
				req.StartAccept(ConnParam{})
				accepted.Add(1)
				lastAccept.Store(time.Now().UnixNano())
			}
		}()
	}
	start := time.Now()
	ai, err := GetAddrInfo(testAddr(b), port, &Hints{Flags: NumericHost, PortSpace: PSTCP, QPType: RC})
	if err != nil {
		b.Fatal(err)
	}
	defer ai.Close()
	clients := createConnecting(b, ai, ch, &qp, n)
	created := time.Since(start)
	for _, id := range clients {
		if _, err := id.WaitEvent(ctx, Established); err != nil {
			b.Fatalf("connect: %v", err)
		}
	}
	took := time.Since(start)
	b.Logf("created and connecting after %v; %d accepted, the last after %v; all established after %v",
		created.Round(time.Millisecond), accepted.Load(), time.Duration(lastAccept.Load()-start.UnixNano()).Round(time.Millisecond), took.Round(time.Millisecond))
	b.StopTimer()
	ch.Close()
	serverCh.Close()
	b.StartTimer()
	return took
}

// cmtimeRun times cmtime -c n against the test address, on a fresh port.
func cmtimeRun(b *testing.B, n int) (time.Duration, string, time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	r, err := cmtime.Run(ctx, testAddr(b), freePort(), n)
	if err != nil {
		b.Fatal(err)
	}
	return r.Establish(), r.Summary(), r.CPU
}

// processCPU is this process's user plus system time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
