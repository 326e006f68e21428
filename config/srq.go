package config

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// SRQ is a listener's shared receive queue (ibv_srq_init_attr): every
// connection it accepts receives from it instead of a receive queue of
// its own, so a listener with thousands of connections posts receives
// for the messages in flight, not for each connection.
type SRQ struct {
	MaxRecvWR  int
	MaxRecvSGE int
}

// srq decodes a listener's srq block. An SRQ serves connected QPs that
// receive (RC here): a UD listener answers SIDR requests and keeps no QP
// of its connections', and a listener without a qp block makes none.
func (c *checker) srq(obj cty.Value, t *bodyTemplate, qp *QP, ps PortSpace) *SRQ {
	v := obj.GetAttr("srq")
	if v.IsNull() || !v.IsKnown() {
		return nil
	}
	st := t.child("srq")
	s := &SRQ{
		MaxRecvWR:  c.intIn(v, st, "max_recv_wr", 1, maxWRStatic, "Invalid SRQ capacity", " (no device we know holds more receives in an SRQ; -device-check compares with the device's max_srq_wr)"),
		MaxRecvSGE: c.intIn(v, st, "max_recv_sge", 1, maxSGEStatic, "Invalid SRQ capacity", " (no device takes more scatter/gather entries; -device-check compares with the device's max_srq_sge)"),
	}
	switch {
	case ps == PortSpaceUDP || ps == PortSpaceIPoIB:
		c.errorf(st.def, "SRQ needs an RC queue pair",
			"A shared receive queue serves the receive queues of accepted RC connections; a listener on the %s port space answers datagram (UD) requests and holds no connections. Remove the srq block, or use port_space \"tcp\" (or \"ib\") with a qp block.", ps)
	case qp == nil:
		c.errorf(st.def, "SRQ needs an RC queue pair",
			"A shared receive queue serves the receive queues of the QPs the listener makes for its connections, and without a qp block it makes none: add \"qp {}\" (its type is rc in the tcp and ib port spaces).")
	case qp.Type != "" && qp.Type != QPTypeRC:
		c.errorf(st.def, "SRQ needs an RC queue pair",
			"A shared receive queue serves accepted RC connections; this listener's qp block has type %q. Use type \"rc\" or remove the srq block.", qp.Type)
	}
	return s
}

// checkSRQDevice checks a listener's srq block against the device its
// address is served by: ibv_create_srq fails with EINVAL beyond the
// device's max_srq_wr or max_srq_sge, and a device without SRQs
// (max_srq 0) cannot make one at all.
func checkSRQDevice(inst *Instance, t *bodyTemplate, dev DeviceAttr) hcl.Diagnostics {
	if inst.Listener == nil || inst.Listener.SRQ == nil || !inst.Known("srq") || !dev.SRQKnown {
		return nil
	}
	s, st := inst.Listener.SRQ, t.child("srq")
	if dev.MaxSRQ == 0 {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Device has no shared receive queues",
			Detail:  fmt.Sprintf("%s: %s reports max_srq = 0: ibv_create_srq would fail. Remove the srq block.", inst.Addr, dev.Name),
			Subject: st.def.Ptr()}}
	}
	var diags hcl.Diagnostics
	for _, c := range []struct {
		name, limitName string
		value, limit    int
	}{
		{"max_recv_wr", "max_srq_wr", s.MaxRecvWR, dev.MaxSRQWR},
		{"max_recv_sge", "max_srq_sge", s.MaxRecvSGE, dev.MaxSRQSGE},
	} {
		if c.limit > 0 && c.value > c.limit {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Exceeds the device's limit",
				Detail:  fmt.Sprintf("%s: srq.%s = %d exceeds %s's %s of %d: ibv_create_srq would fail with EINVAL.", inst.Addr, c.name, c.value, dev.Name, c.limitName, c.limit),
				Subject: st.attrRange(c.name).Ptr()})
		}
	}
	return diags
}
