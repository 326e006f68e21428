//go:build linux && cgo && integration

package rdmacm

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkEstablish1000 establishes 1,000 RC connections to one listener
// through this binding and, in the same run, times cmtime -c 1000 against
// the same device; it reports both and the ratio (goal: at most 1.25).
func BenchmarkEstablish1000(b *testing.B) {
	const n = 1000
	for i := 0; i < b.N; i++ {
		ours := establishOnce(b, n)
		ref, phases := cmtime(b, n)
		b.ReportMetric(ours.Seconds(), "rdmaform-s")
		b.ReportMetric(ref.Seconds(), "cmtime-s")
		b.ReportMetric(ours.Seconds()/ref.Seconds(), "ratio")
		b.Logf("1000 RC connections from nothing to established: rdmaform %v, cmtime %v (%s), ratio %.2f",
			ours.Round(time.Millisecond), ref.Round(time.Millisecond), phases, ours.Seconds()/ref.Seconds())
	}
}

func establishOnce(b *testing.B, n int) time.Duration {
	ch := newChannel(b)
	qp := QPInit{MaxSendWR: 1, MaxRecvWR: 1, MaxSendSGE: 1, MaxRecvSGE: 1}
	l, port := listen(b, ch, testAddr(b), PSTCP, &qp)
	ctx := ctxFor(b, 5*time.Minute)
	go func() {
		for {
			req, _, err := l.GetRequest(ctx)
			if err != nil {
				return
			}
			req.StartAccept(ConnParam{})
		}
	}()
	start := time.Now()
	ai, err := GetAddrInfo(testAddr(b), port, &Hints{Flags: NumericHost, PortSpace: PSTCP, QPType: RC})
	if err != nil {
		b.Fatal(err)
	}
	defer ai.Close()
	clients := createConnecting(b, ai, ch, &qp, n)
	for _, id := range clients {
		if _, err := id.WaitEvent(ctx, Established); err != nil {
			b.Fatalf("connect: %v", err)
		}
	}
	took := time.Since(start)
	b.StopTimer()
	ch.Close()
	b.StartTimer()
	return took
}

// cmtime runs rdma-core's cmtime server and client for n connections and
// returns the client's time from nothing to established: the sum of its
// create id, resolve addr, resolve route, create qp and connect steps.
func cmtime(b *testing.B, n int) (time.Duration, string) {
	port := freePort()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	server := exec.CommandContext(ctx, "cmtime", "-b", testAddr(b), "-p", port, "-c", strconv.Itoa(n))
	if err := server.Start(); err != nil {
		b.Fatalf("cmtime server: %v (is rdmacm-utils installed?)", err)
	}
	defer func() { server.Process.Kill(); server.Wait() }()
	time.Sleep(500 * time.Millisecond)
	out, err := exec.CommandContext(ctx, "cmtime", "-s", testAddr(b), "-p", port, "-c", strconv.Itoa(n)).CombinedOutput()
	if err != nil {
		b.Fatalf("cmtime client: %v\n%s", err, out)
	}
	steps := map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			continue
		}
		if ms, err := strconv.ParseFloat(f[0], 64); err == nil {
			steps[strings.TrimSpace(name)] = ms
		}
	}
	var total float64
	var parts []string
	for _, s := range []string{"create id", "resolve addr", "resolve route", "create qp", "connect"} {
		ms, ok := steps[s]
		if !ok {
			b.Fatalf("cmtime output lacks the %q step:\n%s", s, out)
		}
		total += ms
		parts = append(parts, fmt.Sprintf("%s %.0f ms", s, ms))
	}
	return time.Duration(total * float64(time.Millisecond)), strings.Join(parts, ", ")
}
