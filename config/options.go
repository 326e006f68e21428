package config

import (
	"net/netip"

	"github.com/zclconf/go-cty/cty"
)

// FromDevice as an Accept's or a Connect's ResponderResources or
// InitiatorDepth says the configuration left it out: the agent takes what
// the device allows (max_qp_rd_atom, max_qp_init_rd_atom) and, for an
// accept, no more than the request offers.
const FromDevice = -1

// Options are a listener's or an endpoint's options block: rdma_set_option
// settings, nil when left out (the kernel's default).
type Options struct {
	TypeOfService *int  // RDMA_OPTION_ID_TOS, 0-255
	AckTimeout    *int  // RDMA_OPTION_ID_ACK_TIMEOUT, 0-31: 4.096 µs × 2^n
	ReuseAddress  *bool // RDMA_OPTION_ID_REUSEADDR
	IPv6Only      *bool // RDMA_OPTION_ID_AFONLY; listeners only
}

// maxAckTimeout: the ACK timeout is a 5-bit exponent of the QP.
const maxAckTimeout = 31

// rdAtoms reads responder_resources or initiator_depth: FromDevice when
// null, otherwise 0-255.
func (c *checker) rdAtoms(obj cty.Value, t *bodyTemplate, name, summary string) int {
	if v := obj.GetAttr(name); v.IsKnown() && v.IsNull() {
		return FromDevice
	}
	return c.intIn(obj, t, name, 0, 255, summary, " (an 8-bit field of rdma_conn_param)")
}

// options reads an options block; listenAddress is a listener's address
// ("" for an endpoint), which ipv6_only must fit.
func (c *checker) options(obj cty.Value, t *bodyTemplate, qt QPType, listenAddress string) *Options {
	v := obj.GetAttr("options")
	if !v.IsKnown() || v.IsNull() {
		return nil
	}
	ot := t.child("options")
	o := &Options{}
	num := func(name string, hi int64, why string) *int {
		if a := v.GetAttr(name); !a.IsKnown() || a.IsNull() {
			return nil
		}
		n := c.intIn(v, ot, name, 0, hi, "Invalid option", why)
		return &n
	}
	flag := func(name string) *bool {
		a := v.GetAttr(name)
		if !a.IsKnown() || a.IsNull() {
			return nil
		}
		b := a.True()
		return &b
	}
	o.TypeOfService = num("type_of_service", 255, " (the IP TOS byte: RoCE's traffic class)")
	o.AckTimeout = num("ack_timeout", maxAckTimeout, " (the exponent n of the ACK timeout, 4.096 µs × 2^n)")
	o.ReuseAddress = flag("reuse_address")
	if ot.schema.Attribute("ipv6_only") != nil {
		o.IPv6Only = flag("ipv6_only")
	}
	if o.AckTimeout != nil && qt != "" && qt != QPTypeRC {
		c.attrErrorf(ot, "ack_timeout", "ACK timeout needs an RC queue pair",
			"ack_timeout is the local ACK timeout of a reliable connection's QP; this one's QP is %q, which has no ACKs to wait for (the kernel refuses RDMA_OPTION_ID_ACK_TIMEOUT for it). Remove ack_timeout.", qt)
	}
	if o.IPv6Only != nil {
		if ip, err := netip.ParseAddr(listenAddress); err == nil && ip.Is4() {
			c.attrErrorf(ot, "ipv6_only", "ipv6_only needs an IPv6 address",
				"ipv6_only (RDMA_OPTION_ID_AFONLY) says whether a listener bound to an IPv6 address, such as the wildcard ::, leaves the port's IPv4 side to others; this listener's address %q is IPv4, which the kernel binds to its own family only anyway. Remove ipv6_only, or listen on \"::\".", listenAddress)
			// The address may be sensitive: say so rather than show it.
			d := c.diags[len(c.diags)-1]
			sd := &sensitiveDetail{redacted: "ipv6_only (RDMA_OPTION_ID_AFONLY) says whether a listener bound to an IPv6 address, such as the wildcard ::, leaves the port's IPv4 side to others; this listener's address is IPv4, which the kernel binds to its own family only anyway. (The address is sensitive, so it is not shown.) Remove ipv6_only, or listen on \"::\"."}
			if a := t.attr("address"); a != nil {
				sd.exprs = append(sd.exprs, a.Expr)
			}
			d.Extra = sd
			if sd.shows(c.ctx, nil) {
				d.Detail = sd.redacted
			}
		}
	}
	return o
}
