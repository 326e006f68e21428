package agent

import (
	"fmt"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/rdmacm"
)

// optionsOf reads an options block (rdma_set_option); nil sets nothing.
func optionsOf(o *pb.CMOptions, t rdmacm.QPType) (rdmacm.Options, error) {
	var out rdmacm.Options
	if o == nil {
		return out, nil
	}
	if o.TypeOfService != nil {
		v, err := byte8(*o.TypeOfService, "options.type_of_service")
		if err != nil {
			return out, err
		}
		out.TOS = &v
	}
	if o.AckTimeout != nil {
		if *o.AckTimeout > rdmacm.MaxAckTimeout {
			return out, fmt.Errorf("options.ack_timeout = %d: it must be at most %d (the exponent n of 4.096 µs × 2^n)", *o.AckTimeout, rdmacm.MaxAckTimeout)
		}
		if t != rdmacm.RC {
			return out, fmt.Errorf("options.ack_timeout needs an RC QP (this one's is %s): the kernel refuses it for others", t)
		}
		v := uint8(*o.AckTimeout)
		out.AckTimeout = &v
	}
	out.ReuseAddr, out.AFOnly = o.ReuseAddress, o.Ipv6Only
	return out, nil
}

// rdAtoms are responder_resources and initiator_depth when the
// configuration leaves them out: what the device allows and, for an
// accept, the least of that and the request's offer. An 8-bit field of
// rdma_conn_param, where 255 is librdmacm's own "maximum" (MaxRdAtoms),
// so at most 254.
func rdAtoms(dev rdmacm.Limits, offer *rdmacm.ConnParam) (resp, init uint8) {
	r, i := dev.MaxQPRdAtom, dev.MaxQPInitRdAtom
	if offer != nil {
		r, i = min(r, int(offer.ResponderResources)), min(i, int(offer.InitiatorDepth))
	}
	return uint8(max(0, min(r, 254))), uint8(max(0, min(i, 254)))
}

// qpAttrsOf is what a connected QP got, for its facts; nil when it has
// none yet.
func qpAttrsOf(id *rdmacm.ID) *pb.QPAttrs {
	a, ok, err := id.QPAttrs()
	if err != nil || !ok {
		return nil
	}
	u := func(v int) *uint32 { x := uint32(v); return &x }
	out := &pb.QPAttrs{ResponderResources: u(a.ResponderResources), InitiatorDepth: u(a.InitiatorDepth), AckTimeout: u(a.Timeout)}
	if a.Global {
		out.TrafficClass = u(a.TrafficClass)
	}
	return out
}

// setAckTimeout gives an accepted connection the listener's ACK timeout
// before the accept moves its QP to RTS: each request comes with an id of
// its own, and the ACK timeout is an id's.
func (c *connection) setAckTimeout() error {
	t := c.listener.cfg.opts.AckTimeout
	if t == nil {
		return nil
	}
	return c.id.SetAckTimeout(*t)
}
