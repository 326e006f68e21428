package command

import (
	"context"
	"errors"
	"net/netip"
	"syscall"
	"time"

	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/rdmacm"
	"github.com/rdmaform/rdmaform/rdmacm/nodevice"
)

// hostDevices is what validate -device-check checks against: this host's
// RDMA devices, asked directly through the binding (plan asks the agent).
func hostDevices() (config.DeviceLimits, error) {
	devs, err := rdmacm.Devices()
	if errors.Is(err, syscall.ENODEV) && nodevice.OnThisHost() {
		// No device at all is an answer: the check says so, as plan's.
		devs, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	limits := hostDeviceLimits{byName: map[string]config.DeviceAttr{}, routes: map[string]route{}}
	for _, d := range devs {
		attr := config.DeviceAttr{Name: d.Name, MaxQPWR: d.Limits.MaxQPWR, MaxSGE: d.Limits.MaxSGE, MaxCQE: d.Limits.MaxCQE,
			MaxQPRdAtom: d.Limits.MaxQPRdAtom, MaxQPInitRdAtom: d.Limits.MaxQPInitRdAtom,
			MaxSRQ: d.Limits.MaxSRQ, MaxSRQWR: d.Limits.MaxSRQWR, MaxSRQSGE: d.Limits.MaxSRQSGE, SRQKnown: true}
		if len(d.Ports) > 0 {
			attr.LinkLayer = d.Ports[0].LinkLayer
		}
		limits.byName[d.Name] = attr
	}
	return limits, nil
}

type hostDeviceLimits struct {
	byName map[string]config.DeviceAttr
	// routes remembers each address's answer: a block with count = 1000
	// asks for the same address a thousand times, and each answer binds or
	// resolves an id through librdmacm.
	routes map[string]route
}

type route struct {
	dev config.DeviceAttr
	err error
}

// IsLocal reports whether ip is an address of this host.
func (h hostDeviceLimits) IsLocal(ip netip.Addr) bool { return planner.IsLocalAddress(ip) }

// AnyDevice reports whether this host has an RDMA device.
func (h hostDeviceLimits) AnyDevice() bool { return len(h.byName) > 0 }

func (h hostDeviceLimits) Device(name string) (config.DeviceAttr, error) {
	if d, ok := h.byName[name]; ok {
		return d, nil
	}
	names := make([]string, 0, len(h.byName))
	for n := range h.byName {
		names = append(names, n)
	}
	return config.DeviceAttr{}, planner.NoDeviceNamed(name, names)
}

func (h hostDeviceLimits) DeviceFor(address string) (config.DeviceAttr, error) {
	if r, ok := h.routes[address]; ok {
		return r.dev, r.err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var r route
	name, err := rdmacm.DeviceFor(ctx, address)
	if err != nil {
		r.err = err
	} else {
		r.dev, r.err = h.Device(name)
	}
	h.routes[address] = r
	return r.dev, r.err
}
