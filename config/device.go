package config

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/rdmacm/nodevice"
)

// DeviceAttr is what the device check needs to know of an RDMA device,
// from ibv_query_device.
type DeviceAttr struct {
	Name    string
	MaxQPWR int // max_qp_wr
	MaxSGE  int // max_sge
	MaxCQE  int // max_cqe
	// MaxQPRdAtom and MaxQPInitRdAtom bound a connection's
	// responder_resources and initiator_depth (max_qp_rd_atom,
	// max_qp_init_rd_atom).
	MaxQPRdAtom, MaxQPInitRdAtom int
	// LinkLayer is its first port's link layer, "InfiniBand" or
	// "Ethernet" (RoCE); "" when not known.
	LinkLayer string
	// MaxSRQ, MaxSRQWR and MaxSRQSGE bound a listener's srq block
	// (max_srq, max_srq_wr, max_srq_sge); SRQKnown says they were
	// reported (an older agent's are not).
	MaxSRQ, MaxSRQWR, MaxSRQSGE int
	SRQKnown                    bool
}

// DeviceLimits answers questions about the live devices. The rdmacm
// binding (or the agent, for plan) implements it; this package only asks.
type DeviceLimits interface {
	// Device returns the named device's attributes, or an error when
	// there is no such device.
	Device(name string) (DeviceAttr, error)
	// DeviceFor returns the device an address is reached through (the
	// device rdma_bind_addr or rdma_resolve_addr would pick).
	DeviceFor(address string) (DeviceAttr, error)
}

// LocalAddresses is what a DeviceLimits may also answer: whether an IP
// address is one of this host's, which a listener's address and an
// endpoint's source_address must be (rdma_bind_addr fails with
// EADDRNOTAVAIL otherwise, though a device routes to the address).
type LocalAddresses interface {
	IsLocal(ip netip.Addr) bool
}

// DeviceList is what a DeviceLimits may also answer: whether the host
// has any RDMA device. A host with none is said once, with how to make
// one (nodevice.Help), rather than once per object; and a wildcard
// listener (0.0.0.0 or ::), which has no device to look up, needs one.
type DeviceList interface {
	AnyDevice() bool
}

// CheckDevice checks the values that depend on the device against live
// devices: that each protection domain's device exists, that each address
// is reachable through an RDMA device, and that QP caps fit the device's
// max_qp_wr and max_sge, and its max_cqe (a QP's completions, send and
// receive, share one completion queue). Values not known until apply are
// skipped.
func CheckDevice(cfg *Config, dl DeviceLimits) hcl.Diagnostics {
	if l, ok := dl.(DeviceList); ok && !l.AnyDevice() {
		return noDevice(cfg)
	}
	var diags hcl.Diagnostics
	errorf := func(rng hcl.Range, summary, format string, args ...any) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary,
			Detail: fmt.Sprintf(format, args...), Subject: rng.Ptr()})
	}
	for _, inst := range cfg.SortedInstances() {
		t := inst.Resource.body
		var address string
		var addrAttr string
		var qp *QP
		switch {
		case inst.ProtectionDomain != nil:
			if d := inst.ProtectionDomain.Device; d != "" {
				if _, err := dl.Device(d); err != nil {
					errorf(t.attrRange("device"), "No such RDMA device", "%s: device %q: %v.", inst.Addr, d, err)
				}
			}
			continue
		case inst.Listener != nil:
			address, addrAttr, qp = inst.Listener.Address, "address", inst.Listener.QP
		case inst.Endpoint != nil:
			address, addrAttr, qp = inst.Endpoint.Address, "address", inst.Endpoint.QP
			if inst.Endpoint.SourceAddress != "" {
				address, addrAttr = inst.Endpoint.SourceAddress, "source_address"
			}
		}
		if address == "" || !inst.Known(addrAttr) {
			continue
		}
		ip, ipErr := netip.ParseAddr(address)
		if ipErr == nil && ip.IsUnspecified() && inst.Listener != nil {
			continue // listens on every device (there is one: see DeviceList)
		}
		// A listener and a source address are bound: one that is not the
		// host's is refused before any route is looked for (resolving a
		// foreign address waits for its neighbour, and may time out).
		if la, ok := dl.(LocalAddresses); ok && ipErr == nil && (inst.Listener != nil || addrAttr == "source_address") && !la.IsLocal(ip.WithZone("")) {
			errorf(t.attrRange(addrAttr), "Address not on this host",
				"%s: %s is not an address of this host, so it cannot be bound here (rdma_bind_addr would fail with EADDRNOTAVAIL).", inst.Addr, address)
			continue
		}
		dev, err := dl.DeviceFor(address)
		if err != nil {
			why := strings.TrimPrefix(err.Error(), "no RDMA device serves this address: ") // said already
			errorf(t.attrRange(addrAttr), "Address not reachable over RDMA", "%s: no RDMA device serves %s: %s.", inst.Addr, address, strings.TrimSuffix(why, "."))
			continue
		}
		if ps := portSpaceOf(inst); ps == "ipoib" && dev.LinkLayer != "" && dev.LinkLayer != "InfiniBand" {
			errorf(t.attrRange("port_space"), "Port space needs InfiniBand",
				"%s: port_space = \"ipoib\" needs an InfiniBand port, but %s is reached through %s, whose link layer is %s (RoCE): rdma_create_ep would fail with EINVAL. Use \"tcp\" (or \"ib\", which RoCE also carries).",
				inst.Addr, address, dev.Name, dev.LinkLayer)
		}
		diags = append(diags, checkRdAtoms(inst, t, dev)...)
		diags = append(diags, checkSRQDevice(inst, t, dev)...)
		if qp == nil {
			continue
		}
		qt := t.child("qp")
		for _, c := range []struct {
			name, limitName string
			value, limit    int
		}{
			{"max_send_wr", "max_qp_wr", qp.MaxSendWR, dev.MaxQPWR},
			{"max_recv_wr", "max_qp_wr", qp.MaxRecvWR, dev.MaxQPWR},
			{"max_send_sge", "max_sge", qp.MaxSendSGE, dev.MaxSGE},
			{"max_recv_sge", "max_sge", qp.MaxRecvSGE, dev.MaxSGE},
		} {
			if c.limit > 0 && c.value > c.limit {
				errorf(qt.attrRange(c.name), "Exceeds the device's limit",
					"%s: %s = %d exceeds %s's %s of %d.", inst.Addr, c.name, c.value, dev.Name, c.limitName, c.limit)
			}
		}
		if n := qp.MaxSendWR + qp.MaxRecvWR; dev.MaxCQE > 0 && n > dev.MaxCQE && qp.MaxSendWR <= dev.MaxQPWR && qp.MaxRecvWR <= dev.MaxQPWR {
			errorf(qt.attrRange("max_send_wr"), "Exceeds the device's limit",
				"%s: max_send_wr + max_recv_wr = %d completion entries, more than %s's max_cqe of %d (the QP's sends and receives complete on one completion queue).",
				inst.Addr, n, dev.Name, dev.MaxCQE)
		}
	}
	return diags
}

func portSpaceOf(inst *Instance) PortSpace {
	switch {
	case inst.Listener != nil:
		return inst.Listener.PortSpace
	case inst.Endpoint != nil:
		return inst.Endpoint.PortSpace
	}
	return ""
}

// checkRdAtoms checks responder_resources and initiator_depth against the
// device, as librdmacm does before rdma_accept and rdma_connect on the tcp
// port space: above the device's limit they fail with EINVAL, except 255
// (RDMA_MAX_RESP_RES, RDMA_MAX_INIT_DEPTH), which asks for its maximum.
func checkRdAtoms(inst *Instance, t *bodyTemplate, dev DeviceAttr) hcl.Diagnostics {
	if portSpaceOf(inst) != PortSpaceTCP {
		return nil
	}
	block, call, resp, init := "connect", "rdma_connect", 0, 0
	switch {
	case inst.Listener != nil:
		block, call = "accept", "rdma_accept"
		resp, init = inst.Listener.Accept.ResponderResources, inst.Listener.Accept.InitiatorDepth
	case inst.Endpoint != nil:
		resp, init = inst.Endpoint.Connect.ResponderResources, inst.Endpoint.Connect.InitiatorDepth
	}
	if !inst.Known(block) {
		return nil
	}
	bt := t.child(block)
	var diags hcl.Diagnostics
	for _, c := range []struct {
		name, limitName string
		value, limit    int
	}{
		{"responder_resources", "max_qp_rd_atom", resp, dev.MaxQPRdAtom},
		{"initiator_depth", "max_qp_init_rd_atom", init, dev.MaxQPInitRdAtom},
	} {
		if c.limit > 0 && c.value != 255 && c.value > c.limit {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Exceeds the device's limit",
				Detail: fmt.Sprintf("%s: %s.%s = %d exceeds %s's %s of %d: %s would fail with EINVAL. 255 asks for the device's maximum.",
					inst.Addr, block, c.name, c.value, dev.Name, c.limitName, c.limit, call),
				Subject: bt.attrRange(c.name).Ptr()})
		}
	}
	return diags
}

// noDevice is CheckDevice's one error on a host without any RDMA device,
// naming the objects that need one: every listener, endpoint and
// protection domain does.
func noDevice(cfg *Config) hcl.Diagnostics {
	var names []string
	for _, inst := range cfg.SortedInstances() {
		if inst.ProtectionDomain != nil || inst.Listener != nil || inst.Endpoint != nil {
			names = append(names, inst.Addr.String())
		}
	}
	if len(names) == 0 {
		return nil
	}
	who := names[0] + " needs an RDMA device"
	switch n := len(names); {
	case n == 2:
		who = names[0] + " and " + names[1] + " need an RDMA device"
	case n > 2:
		who = fmt.Sprintf("%s and %d others need an RDMA device", names[0], n-1)
	}
	return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: nodevice.Summary,
		Detail: fmt.Sprintf("%s, but %s.", who, nodevice.Help)}}
}
