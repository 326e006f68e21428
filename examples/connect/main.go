// Command connect establishes RC connections over librdmacm through
// rdmaform's binding, as rping does by hand: a listener, N endpoints,
// a few data-path round trips on each, then a clean disconnect and destroy.
// It prints every step. Run it where an RDMA device serves -addr
// (go run ./examples/connect -addr=ADDRESS), or inside the Soft-RoCE
// testbed, built on the host first since the guest has no network and no
// module cache:
//
//	go build -o .cache/connect ./examples/connect
//	scripts/vm-run -- .cache/connect -count=4 -rounds=5
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/rdmaform/rdmaform/rdmacm"
)

func main() {
	addr := flag.String("addr", envOr("RDMAFORM_TEST_ADDR", "10.77.0.1"), "address of the RDMA device to use (listener and endpoints)")
	port := flag.String("port", "7471", "listener port")
	count := flag.Int("count", 4, "number of endpoints to connect")
	rounds := flag.Int("rounds", 5, "data-path round trips per endpoint")
	size := flag.Int("size", 64, "probe message size in bytes")
	flag.Parse()
	if err := run(*addr, *port, *count, *rounds, *size); err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func run(addr, port string, count, rounds, size int) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	step := stepper()

	devs, err := rdmacm.Devices()
	if err != nil {
		return err
	}
	for _, d := range devs {
		for _, p := range d.Ports {
			step("device %s port %d: %s, %s, MTU %d (max_qp_wr %d, max_sge %d)",
				d.Name, p.Num, p.State, p.LinkLayer, p.ActiveMTU, d.Limits.MaxQPWR, d.Limits.MaxSGE)
		}
	}

	ch, err := rdmacm.NewEventChannel()
	if err != nil {
		return err
	}
	defer ch.Close()
	qp := rdmacm.DefaultQPInit()

	passive, err := rdmacm.GetAddrInfo(addr, port, &rdmacm.Hints{Flags: rdmacm.Passive, PortSpace: rdmacm.PSTCP, QPType: rdmacm.RC})
	if err != nil {
		return err
	}
	defer passive.Close()
	listener, err := rdmacm.CreateEP(passive, nil, &qp, ch)
	if err != nil {
		return err
	}
	if err := listener.Listen(128); err != nil {
		return err
	}
	lf, _ := listener.Facts()
	step("listener.demo: listening on %s (%s)", lf.Local, lf.Device)

	// The passive side: accept every request and echo its probes.
	go func() {
		for {
			req, _, err := listener.GetRequest(ctx)
			if err != nil {
				return
			}
			go serve(ctx, req, size, rounds, step)
		}
	}()

	active, err := rdmacm.GetAddrInfo(addr, port, &rdmacm.Hints{PortSpace: rdmacm.PSTCP, QPType: rdmacm.RC})
	if err != nil {
		return err
	}
	defer active.Close()
	var rtts []time.Duration
	for i := 0; i < count; i++ {
		name := fmt.Sprintf("endpoint.client[%d]", i)
		id, err := rdmacm.CreateEP(active, nil, &qp, ch)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		start := time.Now()
		if _, err := id.Connect(ctx, rdmacm.ConnParam{RetryCount: 7, RNRRetryCount: 7}); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		f, _ := id.Facts()
		step("%s: established in %v: %s -> %s, qp_num %d (%s), %s port %d",
			name, time.Since(start).Round(time.Microsecond), f.Local, f.Remote, f.QPNum, f.QPState, f.Device, f.PortNum)
		got, err := probe(ctx, id, size, rounds)
		if err != nil {
			return fmt.Errorf("%s: probe: %w", name, err)
		}
		rtts = append(rtts, got...)
		if err := id.Disconnect(); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if _, err := id.WaitEvent(ctx, rdmacm.Disconnected); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		id.Close()
		step("%s: disconnected and destroyed", name)
	}
	if len(rtts) > 0 {
		sort.Slice(rtts, func(i, j int) bool { return rtts[i] < rtts[j] })
		var sum time.Duration
		for _, r := range rtts {
			sum += r
		}
		step("probes: %d round trips of %d bytes: min %v, mean %v, max %v", len(rtts), size,
			rtts[0].Round(time.Microsecond), (sum / time.Duration(len(rtts))).Round(time.Microsecond), rtts[len(rtts)-1].Round(time.Microsecond))
	}
	if err := listener.Close(); err != nil {
		return err
	}
	step("listener.demo: destroyed")
	return nil
}

// probe sends rounds messages of size bytes and waits for each echo.
func probe(ctx context.Context, id *rdmacm.ID, size, rounds int) ([]time.Duration, error) {
	msg, err := id.RegisterBuffer(size)
	if err != nil {
		return nil, err
	}
	defer msg.Close()
	reply, err := id.RegisterBuffer(size)
	if err != nil {
		return nil, err
	}
	defer reply.Close()
	var out []time.Duration
	for r := 0; r < rounds; r++ {
		sent := make([]byte, size)
		copy(sent, fmt.Sprintf("rdmaform probe %d", r))
		if err := msg.Store(sent); err != nil {
			return out, err
		}
		rtt, err := id.RoundTrip(ctx, msg, reply, size)
		if err != nil {
			return out, err
		}
		got, err := reply.Load(size)
		if err != nil {
			return out, err
		}
		if string(got) != string(sent) {
			return out, fmt.Errorf("echo %d differs from the probe", r)
		}
		out = append(out, rtt)
	}
	return out, nil
}

// serve accepts one connection, echoes its probes, then answers the
// peer's disconnect.
func serve(ctx context.Context, id *rdmacm.ID, size, rounds int, step func(string, ...any)) {
	defer id.Close()
	if err := echo(ctx, id, size, rounds); err != nil {
		step("listener.demo: %v", err)
		return
	}
	if _, err := id.WaitEvent(ctx, rdmacm.Disconnected); err == nil {
		id.Disconnect()
	}
}

func echo(ctx context.Context, id *rdmacm.ID, size, rounds int) error {
	in, err := id.RegisterBuffer(size)
	if err != nil {
		return err
	}
	out, err := id.RegisterBuffer(size)
	if err != nil {
		return err
	}
	// The first receive is posted before accepting, so the first probe
	// never meets an empty receive queue.
	if err := id.PostRecv(in, 1); err != nil {
		return err
	}
	if err := id.Accept(ctx, rdmacm.ConnParam{}); err != nil {
		return err
	}
	for r := 0; r < rounds; r++ {
		c, err := id.WaitRecv(ctx)
		if err != nil {
			return err
		}
		got, err := in.Load(c.Bytes)
		if err != nil {
			return err
		}
		if err := out.Store(got); err != nil {
			return err
		}
		if r+1 < rounds {
			if err := id.PostRecv(in, 1); err != nil {
				return err
			}
		}
		if err := id.PostSend(out, c.Bytes, 2); err != nil {
			return err
		}
		if _, err := id.WaitSend(ctx); err != nil {
			return err
		}
	}
	return nil
}

func stepper() func(string, ...any) {
	start := time.Now()
	return func(format string, args ...any) {
		fmt.Printf("[%8.3fs] %s\n", time.Since(start).Seconds(), fmt.Sprintf(format, args...))
	}
}
