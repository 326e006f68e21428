//go:build linux && cgo

package rdmacm

import (
	"context"
	"fmt"
	"syscall"
)

// DeviceFor names the RDMA device an address is reached through: the one
// rdma_bind_addr picks for a local address, or else the one
// rdma_resolve_addr picks to reach it. It fails with ENODEV (or the
// resolution's error) when no RDMA device serves the address.
func DeviceFor(ctx context.Context, address string) (string, error) {
	ch, err := NewEventChannel()
	if err != nil {
		return "", err
	}
	defer ch.Close()
	if dev, err := boundDevice(address, ch); err == nil && dev != "" {
		return dev, nil
	}
	ai, err := GetAddrInfo(address, "9", &Hints{PortSpace: PSTCP, QPType: RC, Flags: NoRoute})
	if err != nil {
		return "", err
	}
	defer ai.Close()
	id, err := Dial(ctx, ai, nil, nil, ch, 0)
	if err != nil {
		return "", err
	}
	defer id.Close()
	f, err := id.Facts()
	if err != nil {
		return "", err
	}
	if f.Device == "" {
		return "", fmt.Errorf("%s: %w", address, syscall.ENODEV)
	}
	return f.Device, nil
}

// boundDevice binds an id to address (port 0) and reads its device; a
// wildcard or foreign address yields none.
func boundDevice(address string, ch *EventChannel) (string, error) {
	ai, err := GetAddrInfo(address, "0", &Hints{Flags: Passive, PortSpace: PSTCP, QPType: RC})
	if err != nil {
		return "", err
	}
	defer ai.Close()
	id, err := CreateEP(ai, nil, nil, ch)
	if err != nil {
		return "", err
	}
	defer id.Close()
	f, err := id.Facts()
	return f.Device, err
}
