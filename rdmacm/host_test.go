//go:build linux && cgo

package rdmacm

import (
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
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
