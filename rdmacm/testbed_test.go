//go:build linux && cgo && integration

package rdmacm

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The integration tests run inside the Soft-RoCE testbed (scripts/vm-run)
// or on a host with an RDMA device; without one they fail, never skip.

func TestMain(m *testing.M) {
	// 1,000 connected pairs hold about 4,000 completion-channel descriptors;
	// raise the soft limit to the hard one, and the hard one where allowed.
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &lim) == nil {
		want := unix.Rlimit{Cur: 1 << 20, Max: 1 << 20}
		if unix.Setrlimit(unix.RLIMIT_NOFILE, &want) != nil {
			lim.Cur = lim.Max
			unix.Setrlimit(unix.RLIMIT_NOFILE, &lim)
		}
	}
	os.Exit(m.Run())
}

func testAddr(t testing.TB) string {
	if a := os.Getenv("RDMAFORM_TEST_ADDR"); a != "" {
		return a
	}
	t.Fatal("RDMAFORM_TEST_ADDR is not set: run the integration tests in the Soft-RoCE testbed (scripts/vm-run) " +
		"or set it to an address served by an RDMA device")
	return ""
}

func testDevice(t testing.TB) string {
	if d := os.Getenv("RDMAFORM_TEST_DEVICE"); d != "" {
		return d
	}
	t.Fatal("RDMAFORM_TEST_DEVICE is not set (for example rxe0)")
	return ""
}

var nextPort atomic.Int32

func init() { nextPort.Store(int32(20000 + os.Getpid()%10000)) }

// freePort hands out a port per listener so tests never collide.
func freePort() string { return strconv.Itoa(int(nextPort.Add(1))) }

func ctxFor(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func newChannel(t testing.TB) *EventChannel {
	ch, err := NewEventChannel()
	if err != nil {
		t.Fatalf("NewEventChannel: %v", err)
	}
	t.Cleanup(func() { ch.Close() })
	return ch
}

func addrInfo(t testing.TB, node, port string, h Hints) *AddrInfo {
	ai, err := GetAddrInfo(node, port, &h)
	if err != nil {
		t.Fatalf("GetAddrInfo(%s, %s): %v", node, port, err)
	}
	t.Cleanup(func() { ai.Close() })
	return ai
}

// listen creates a listening id with a QP configuration on ch.
func listen(t testing.TB, ch *EventChannel, node string, ps PortSpace, qp *QPInit) (*ID, string) {
	port := freePort()
	ai := addrInfo(t, node, port, Hints{Flags: Passive | NumericHost, PortSpace: ps, QPType: DefaultQPType(ps)})
	l, err := CreateEP(ai, nil, qp, ch)
	if err != nil {
		t.Fatalf("CreateEP(passive %s:%s): %v", node, port, err)
	}
	t.Cleanup(func() { l.Close() })
	if err := l.Listen(listenBacklog); err != nil {
		t.Fatalf("Listen: %v", err)
	}
	return l, port
}

// dial creates an active id with a QP toward node:port.
func dial(t testing.TB, ch *EventChannel, node, port string, ps PortSpace, qp *QPInit) *ID {
	ai := addrInfo(t, node, port, Hints{Flags: NumericHost, PortSpace: ps, QPType: DefaultQPType(ps)})
	id, err := CreateEP(ai, nil, qp, ch)
	if err != nil {
		t.Fatalf("CreateEP(active %s:%s): %v", node, port, err)
	}
	t.Cleanup(func() { id.Close() })
	return id
}

// openFDs counts this process's open descriptors.
func openFDs(t testing.TB) int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

// rssBytes is this process's resident set size.
func rssBytes(t testing.TB) int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b))
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// listenBacklog is the test listeners' backlog: enough for the 1,000
// connect requests the benchmark sends in one burst, so the kernel never
// drops one (the sender would retry only after the CM's timeout).
var listenBacklog = envInt("RDMAFORM_BACKLOG", 1024)
