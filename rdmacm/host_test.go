//go:build linux && cgo

package rdmacm

import (
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hasRDMADevice reports whether the kernel exposes an RDMA device; the
// host-side tests assert the behaviour that matches.
func hasRDMADevice() bool {
	entries, err := os.ReadDir("/sys/class/infiniband")
	return err == nil && len(entries) > 0
}

func TestNoDeviceErrorSaysWhatToDo(t *testing.T) {
	if hasRDMADevice() {
		devs, err := Devices()
		if err != nil || len(devs) == 0 {
			t.Fatalf("this host has RDMA devices, yet Devices() = %v, %v", devs, err)
		}
		return
	}
	_, err := GetAddrInfo("127.0.0.1", "7471", &Hints{Flags: Passive})
	if !errors.Is(err, syscall.ENODEV) {
		t.Fatalf("GetAddrInfo on a host without RDMA: %v, want ENODEV", err)
	}
	msg := err.Error()
	for _, want := range []string{"rdma_getaddrinfo", "ENODEV", "no RDMA device", "rdma link add", "scripts/vm-run"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if _, err := NewEventChannel(); !errors.Is(err, syscall.ENODEV) {
		t.Errorf("NewEventChannel on a host without RDMA: %v, want ENODEV", err)
	}
	if _, err := Devices(); !errors.Is(err, syscall.ENODEV) {
		t.Errorf("Devices on a host without RDMA: %v, want ENODEV", err)
	}
}

func TestActivePortZeroRefusedBeforeC(t *testing.T) {
	_, err := GetAddrInfo("10.77.0.1", "0", nil)
	if err == nil || errors.Is(err, syscall.ENODEV) || !strings.Contains(err.Error(), "port 0 is not allowed") {
		t.Fatalf("active port 0: %v", err)
	}
}

// Resolution gets the time left before ctx's deadline as the kernel's
// timeout_ms, 2 s without a deadline, and never 0 (the kernel's own
// default) once the deadline has passed.
func TestResolveTimeoutFollowsTheDeadline(t *testing.T) {
	if got := int(resolveTimeoutMs(context.Background())); got != 2000 {
		t.Errorf("no deadline: timeout_ms %d, want 2000", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if got := int(resolveTimeoutMs(ctx)); got < 400 || got > 500 {
		t.Errorf("500 ms deadline: timeout_ms %d, want 400-500", got)
	}
	past, cancel2 := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel2()
	if got := int(resolveTimeoutMs(past)); got != 1 {
		t.Errorf("past deadline: timeout_ms %d, want 1", got)
	}
}
