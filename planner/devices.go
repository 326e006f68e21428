package planner

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/rdmacm/nodevice"
)

// checkDevices checks what depends on the live devices, for the objects
// the plan creates: QP caps within the device's max_qp_wr and max_sge
// (naming the device and the limit), protection domains on existing
// devices, addresses served by an RDMA device, and a protection domain on
// the same device as the address of the listener or endpoint using it.
// Objects left alone or updated in place were checked when created.
//
// A plan that creates nothing does not ask for the devices at all. Each
// object is checked against the devices of its own agent (devicesOf), on
// whose host it is made.
func checkDevices(ctx context.Context, cfg *config.Config, p *Plan, devicesOf func(agent string) DeviceInfo) hcl.Diagnostics {
	// CheckDevice walks a whole configuration; give it, per agent, one
	// holding only the objects being created there.
	subs := map[string]*config.Config{}
	var agents []string
	for _, c := range p.Changes {
		if c.Action.Creates() {
			if inst := cfg.Instances[c.Addr]; inst != nil {
				sub := subs[inst.Agent]
				if sub == nil {
					sub = &config.Config{Resources: cfg.Resources, Instances: map[addrs.Instance]*config.Instance{}}
					subs[inst.Agent] = sub
					agents = append(agents, inst.Agent)
				}
				sub.Instances[c.Addr] = inst
			}
		}
	}
	sort.Strings(agents)
	var diags hcl.Diagnostics
	for _, agent := range agents {
		if di := devicesOf(agent); di != nil {
			diags = append(diags, checkAgentDevices(ctx, cfg, subs[agent], agent, di)...)
		}
	}
	return onePerBlock(diags)
}

// checkAgentDevices is checkDevices for the objects sub holds, which one
// agent is to make.
func checkAgentDevices(ctx context.Context, cfg, sub *config.Config, agent string, di DeviceInfo) hcl.Diagnostics {
	devs, err := di.Devices(ctx)
	if err != nil {
		detail := err.Error()
		if agent != "" {
			detail = fmt.Sprintf("Listing the devices of %s: %s", agent, detail)
		}
		return hcl.Diagnostics{sourceless(hcl.DiagError, "Failed to list the RDMA devices", detail)}
	}
	limits := &deviceLimits{ctx: ctx, di: di, devices: map[string]config.DeviceAttr{}, routes: map[string]route{}}
	for _, d := range devs {
		limits.devices[d.Name] = config.DeviceAttr{Name: d.Name, MaxQPWR: d.MaxQPWR, MaxSGE: d.MaxSGE, MaxCQE: d.MaxCQE, LinkLayer: d.LinkLayer,
			MaxQPRdAtom: d.MaxQPRdAtom, MaxQPInitRdAtom: d.MaxQPInitRdAtom,
			MaxSRQ: d.MaxSRQ, MaxSRQWR: d.MaxSRQWR, MaxSRQSGE: d.MaxSRQSGE, SRQKnown: d.MaxSRQ > 0}
	}
	diags := config.CheckDevice(sub, limits)
	diags = append(diags, CheckPDDevices(cfg, sub.SortedInstances(), limits)...)
	return onHost(cfg, agent, diags)
}

// onHost names a remote agent's host in its objects' device diagnostics:
// "this host" there is the agent's, not the one plan runs on.
func onHost(cfg *config.Config, agent string, diags hcl.Diagnostics) hcl.Diagnostics {
	if agent == "" || len(diags) == 0 {
		return diags
	}
	where := "On the host of " + agent
	if a := cfg.Agents[agent]; a != nil {
		where += " (" + a.Address + ")"
	}
	out := make(hcl.Diagnostics, len(diags))
	for i, d := range diags {
		c := *d
		c.Detail = where + ": " + c.Detail
		out[i] = &c
	}
	return out
}

// CheckPDDevices checks that each of insts (of cfg) with a protection
// domain uses one on the device its address is served by (checkPDDevice):
// plan's check, which validate -device-check makes too.
func CheckPDDevices(cfg *config.Config, insts []*config.Instance, limits config.DeviceLimits) hcl.Diagnostics {
	if l, ok := limits.(config.DeviceList); ok && !l.AnyDevice() {
		return nil // no device at all: CheckDevice says so, once
	}
	var diags hcl.Diagnostics
	byResource := InstancesByResource(cfg)
	for _, inst := range insts {
		diags = append(diags, checkPDDevice(cfg, byResource, inst, limits)...)
	}
	return diags
}

// onePerBlock keeps the first of the diagnostics that share a summary and
// a source range (the instances of one block with count = 1000 share
// them), saying how many others it stands for, as the configuration's own
// diagnostics do.
func onePerBlock(diags hcl.Diagnostics) hcl.Diagnostics {
	type key struct {
		summary string
		rng     hcl.Range
	}
	var out hcl.Diagnostics
	first := map[key]int{}
	others := map[int]int{}
	for _, d := range diags {
		k := key{summary: d.Summary}
		if d.Subject != nil {
			k.rng = *d.Subject
		}
		if i, seen := first[k]; seen && d.Subject != nil {
			others[i]++
			continue
		}
		first[k] = len(out)
		out = append(out, d)
	}
	for i, n := range others {
		d := *out[i]
		word := "instances"
		if n == 1 {
			word = "instance"
		}
		d.Detail += fmt.Sprintf(" The same applies to %d other %s of this block.", n, word)
		out[i] = &d
	}
	return out
}

// checkPDDevice reports a listener or endpoint whose protection domain is
// on another device than the one its address resolves to: a PD serves one
// device only, and rdma_create_qp would fail at apply with EINVAL.
func checkPDDevice(cfg *config.Config, byResource map[addrs.Resource][]*config.Instance, inst *config.Instance, limits config.DeviceLimits) hcl.Diagnostics {
	var address string
	switch {
	case inst.Listener != nil:
		address = inst.Listener.Address
	case inst.Endpoint != nil:
		address = inst.Endpoint.Address
		if inst.Endpoint.SourceAddress != "" {
			address = inst.Endpoint.SourceAddress
		}
	default:
		return nil
	}
	pd := ProtectionDomainOf(cfg, byResource, inst)
	if pd == nil || pd.ProtectionDomain == nil || pd.ProtectionDomain.Device == "" || address == "" {
		return nil
	}
	dev, err := limits.DeviceFor(address)
	if err != nil || dev.Name == pd.ProtectionDomain.Device {
		return nil // an unreachable address is reported by CheckDevice
	}
	rng := inst.Resource.DeclRange
	return hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "Protection domain on another device",
		Detail: fmt.Sprintf("%s uses %s, which is on device %s, but its address %s is served by device %s. A protection domain serves one device only; declare one on %s.",
			inst.Addr, pd.Addr, pd.ProtectionDomain.Device, address, dev.Name, dev.Name),
		Subject: &rng,
	}}
}

// ProtectionDomainOf finds the protection domain an instance's pd
// attribute names: by value when it is known (a protection domain's id is
// the agent's name for it: its address, under the configuration's
// namespace, or the name it was made under before a moved block),
// otherwise the only protection domain instance among the blocks it
// depends on; nil when there is none or it is ambiguous. byResource is
// InstancesByResource(cfg).
func ProtectionDomainOf(cfg *config.Config, byResource map[addrs.Resource][]*config.Instance, inst *config.Instance) *config.Instance {
	if inst.Known("pd") {
		v := inst.Value.GetAttr("pd")
		if v.IsNull() {
			return nil
		}
		if a, err := addrs.ParseInstance(AddressOf(v.AsString())); err == nil && cfg.Instances[a] != nil {
			return cfg.Instances[a]
		}
	}
	var found *config.Instance
	for _, d := range inst.Resource.DependsOn {
		if d.Kind != addrs.ProtectionDomain {
			continue
		}
		for _, pdi := range byResource[d] {
			if found != nil {
				return nil // ambiguous: the value decides at apply
			}
			found = pdi
		}
	}
	return found
}

// InstancesByResource groups the configuration's instances by block.
func InstancesByResource(cfg *config.Config) map[addrs.Resource][]*config.Instance {
	out := make(map[addrs.Resource][]*config.Instance, len(cfg.Resources))
	for _, inst := range cfg.Instances {
		out[inst.Addr.Resource] = append(out[inst.Addr.Resource], inst)
	}
	return out
}

// deviceLimits adapts a DeviceInfo to config.DeviceLimits, asking the
// agent about each address once.
type deviceLimits struct {
	ctx     context.Context
	di      DeviceInfo
	devices map[string]config.DeviceAttr
	routes  map[string]route
}

type route struct {
	dev config.DeviceAttr
	err error
}

var (
	_ config.DeviceLimits = (*deviceLimits)(nil)
	_ config.DeviceList   = (*deviceLimits)(nil)
)

func (l *deviceLimits) Device(name string) (config.DeviceAttr, error) {
	if d, ok := l.devices[name]; ok {
		return d, nil
	}
	names := make([]string, 0, len(l.devices))
	for n := range l.devices {
		names = append(names, n)
	}
	return config.DeviceAttr{}, NoDeviceNamed(name, names)
}

// AnyDevice reports whether the agent's host has an RDMA device.
func (l *deviceLimits) AnyDevice() bool { return len(l.devices) > 0 }

// NoDeviceNamed is the error of a device name the host does not have,
// naming those it has (validate -device-check says it too).
func NoDeviceNamed(name string, have []string) error {
	if len(have) == 0 {
		return errors.New(nodevice.Help)
	}
	sort.Strings(have)
	return fmt.Errorf("no RDMA device named %q on this host; it has %s (see `rdma link`)", name, strings.Join(have, ", "))
}

func (l *deviceLimits) DeviceFor(address string) (config.DeviceAttr, error) {
	if r, ok := l.routes[address]; ok {
		return r.dev, r.err
	}
	var r route
	name, err := l.di.DeviceFor(l.ctx, address)
	if err != nil {
		r.err = err
	} else if d, ok := l.devices[name]; ok {
		r.dev = d
	} else {
		r.dev = config.DeviceAttr{Name: name}
	}
	l.routes[address] = r
	return r.dev, r.err
}

// IsLocal reports whether ip is an address of the agent's host, when the
// DeviceInfo says (a LocalAddresses); else it says yes.
func (l *deviceLimits) IsLocal(ip netip.Addr) bool {
	if la, ok := l.di.(config.LocalAddresses); ok {
		return la.IsLocal(ip)
	}
	return true
}

// IsLocalAddress reports whether ip is assigned to one of this host's
// interfaces; when the interfaces cannot be read, it says yes, leaving the
// question to apply.
func IsLocalAddress(ip netip.Addr) bool {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return true
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			if x, ok := netip.AddrFromSlice(n.IP); ok && x.Unmap() == ip.Unmap() {
				return true
			}
		}
	}
	return false
}
