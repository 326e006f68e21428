//go:build integration

// These tests run on the host (scripts/test runs them after the single-VM
// integration tests): they boot the guests themselves.
package vmfabric_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/rdmacm/rdmatest/vmfabric"
)

func testContext(t *testing.T) context.Context {
	if os.Getenv("RDMAFORM_IN_VM") == "1" {
		t.Fatal("the vmfabric tests boot their own VMs: run them on the host, not in scripts/vm-run")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// One guest: commands' output and exit codes, a long-lived command
// stopped, a guest TCP port reached through its forwarded host port, which
// refuses while the guest is off and reaches it again once booted again.
func TestOneHost(t *testing.T) {
	ctx := testContext(t)
	f := vmfabric.Boot(t, vmfabric.Spec{Hosts: 1, Forward: []int{7470}})
	h := f.Host(0)

	out, code, err := h.Run(ctx, "sh", "-c", `echo "$RDMAFORM_TEST_ADDR $RDMAFORM_TEST_DEVICE $RDMAFORM_TEST_NETDEV $(hostname) $PWD"; rdma link; exit 3`)
	if err != nil || code != 3 {
		t.Fatalf("sh in the guest: exit %d, %v, want exit 3; output:\n%s", code, err, out)
	}
	if want := fmt.Sprintf("10.77.1.1 rxe0 eth0 host1 %s\n", treeRoot(t)); !strings.HasPrefix(out, want) {
		t.Errorf("the guest's environment: got %q, want it to start with %q", out, want)
	}
	if !strings.Contains(out, "rxe0/1 state ACTIVE") || !strings.Contains(out, "netdev eth0") {
		t.Errorf("rdma link in the guest shows no active rxe0 on eth0:\n%s", out)
	}

	frozen(t, ctx, h)

	if _, _, err := h.Run(ctx, "true"); err != nil {
		t.Fatal(err)
	}
	h.PowerOff()
	if _, _, err := h.Run(ctx, "true"); err == nil || !strings.Contains(err.Error(), "the guest is off") {
		t.Errorf("Run on a powered-off guest: got %v, want it to say the guest is off", err)
	}
	if c, err := net.Dial("tcp", h.Forwarded(7470)); err == nil {
		c.Close()
		t.Errorf("the forwarded port %s of a powered-off guest accepted a connection", h.Forwarded(7470))
	}
	// Booted again, the guest has the same forwarded port.
	if err := h.Boot(ctx); err != nil {
		t.Fatal(err)
	}
	hello(t, ctx, h)
}

// frozen: a frozen guest answers nothing on its forwarded port, neither
// its data nor a reset nor an end (a pulled cable, not a dead process);
// thawed, it serves again.
func frozen(t *testing.T, ctx context.Context, h *vmfabric.Host) {
	t.Helper()
	srv, err := h.Start("sh", "-c", "while :; do echo hello from $(hostname) | busybox nc -l -p 7470; done")
	if err != nil {
		t.Fatal(err)
	}
	addr := h.Forwarded(7470)
	waitFor(t, ctx, "the guest's port 7470 through "+addr, func() (bool, string) {
		c, err := net.DialTimeout("tcp", addr, 10*time.Second)
		if err != nil {
			return false, err.Error()
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		line, err := bufio.NewReader(c).ReadString('\n')
		return err == nil, fmt.Sprintf("read %q: %v", line, err)
	})
	if err := h.Freeze(); err != nil {
		t.Fatal(err)
	}
	if !h.Frozen() {
		t.Error("Frozen() is false after Freeze")
	}
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		h.Thaw()
		t.Fatalf("connecting to a frozen guest's forwarded port: %v; want the host's kernel to accept it, as a pulled cable's host's would not refuse", err)
	}
	defer c.Close()
	// Nothing comes while it is frozen: not the line, not an end.
	_ = c.SetReadDeadline(time.Now().Add(3 * time.Second))
	r := bufio.NewReader(c)
	if line, err := r.ReadString('\n'); !errors.Is(err, os.ErrDeadlineExceeded) {
		h.Thaw()
		t.Fatalf("a frozen guest's forwarded port answered %q, %v; want nothing", line, err)
	}
	if err := h.Thaw(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Stop(ctx); err != nil {
		t.Errorf("stopping the guest's server: %v", err)
	}
	hello(t, ctx, h)
}

// hello serves a line on the guest's port 7470 and reads it on the host
// through the forwarded port.
func hello(t *testing.T, ctx context.Context, h *vmfabric.Host) {
	t.Helper()
	srv, err := h.Start("sh", "-c", "while :; do echo hello from $(hostname) | busybox nc -l -p 7470; done")
	if err != nil {
		t.Fatal(err)
	}
	addr := h.Forwarded(7470)
	if !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Fatalf("Forwarded(7470) = %q, want a 127.0.0.1 address", addr)
	}
	var line string
	waitFor(t, ctx, "the guest's port 7470 through "+addr, func() (bool, string) {
		// Until nc listens, qemu accepts and closes the host's connection.
		c, err := net.DialTimeout("tcp", addr, 10*time.Second)
		if err != nil {
			return false, err.Error()
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		line, err = bufio.NewReader(c).ReadString('\n')
		return err == nil, fmt.Sprintf("read %q: %v", line, err)
	})
	if want := "hello from " + h.Name() + "\n"; line != want {
		t.Errorf("read %q through the forwarded port, want %q", line, want)
	}
	if err := srv.Stop(ctx); err != nil {
		t.Errorf("stopping the guest's server: %v", err)
	}
}

// Two guests on the wire: rping across it, the listener's cm_id seen by
// rdma resource show; then the server's guest powered off and booted
// again, and rping across the same wire again.
func TestTwoHostsRping(t *testing.T) {
	ctx := testContext(t)
	f := vmfabric.Boot(t, vmfabric.Spec{Hosts: 2})
	rping(t, ctx, f.Host(0), f.Host(1))

	f.Host(0).PowerOff()
	start := time.Now()
	if err := f.Host(0).Boot(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("host1 booted again in %.1f s", time.Since(start).Seconds())
	rping(t, ctx, f.Host(0), f.Host(1))
}

// Three guests on one wire: each pair pings.
func TestThreeHostsRping(t *testing.T) {
	ctx := testContext(t)
	f := vmfabric.Boot(t, vmfabric.Spec{Hosts: 3})
	for _, pair := range [][2]int{{0, 1}, {1, 2}, {2, 0}} {
		rping(t, ctx, f.Host(pair[0]), f.Host(pair[1]))
	}
}

// rping runs rping's server on one guest and its client on another, and
// checks the three pings went across and the server's listening cm_id was
// there meanwhile.
func rping(t *testing.T, ctx context.Context, server, client *vmfabric.Host) {
	t.Helper()
	srv, err := server.Start("rping", "-s", "-a", server.Addr(), "-C", "3")
	if err != nil {
		t.Fatal(err)
	}
	// rping's default port.
	listening := server.Addr() + ":7174"
	waitFor(t, ctx, "rping's listening cm_id on "+server.Name(), func() (bool, string) {
		out, code, err := server.Run(ctx, "rdma", "resource", "show", "cm_id")
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, "state LISTEN") && strings.Contains(l, "src-addr "+listening) && strings.Contains(l, "comm rping") {
				return true, ""
			}
		}
		return false, fmt.Sprintf("rdma resource show cm_id exited %d:\n%s", code, out)
	})
	out, code, err := client.Run(ctx, "rping", "-c", "-a", server.Addr(), "-C", "3", "-v")
	if err != nil || code != 0 {
		t.Fatalf("rping -c on %s to %s: exit %d, %v; output:\n%s\nserver output:\n%s", client.Name(), server.Addr(), code, err, out, srv.Output())
	}
	for i := range 3 {
		if want := fmt.Sprintf("ping data: rdma-ping-%d: ", i); !strings.Contains(out, want) {
			t.Errorf("rping -c on %s to %s: no %q in its output:\n%s", client.Name(), server.Addr(), want, out)
		}
	}
	if code, err := srv.Wait(ctx); err != nil || code != 0 {
		t.Errorf("rping -s on %s: exit %d, %v; output:\n%s", server.Name(), code, err, srv.Output())
	}
}

// waitFor polls cond until it holds, failing the test after two minutes
// with cond's last word.
func waitFor(t *testing.T, ctx context.Context, what string, cond func() (bool, string)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for {
		ok, last := cond()
		if ok {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v; last: %s", what, ctx.Err(), last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// treeRoot is the working tree the guests run commands from.
func treeRoot(t *testing.T) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	// rdmacm/rdmatest/vmfabric
	return strings.TrimSuffix(wd, "/rdmacm/rdmatest/vmfabric")
}
