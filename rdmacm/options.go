package rdmacm

import "fmt"

// Options are an id's rdma_set_option settings (level RDMA_OPTION_ID); a
// nil field leaves the kernel's default. Each takes effect only if set at
// the right moment, which is why they are given when the id is made
// (CreateEPWith, DialWith) rather than set on a live id:
//
//   - TOS (RDMA_OPTION_ID_TOS, the IP type of service; RoCE's traffic
//     class) is read when the route is resolved: set before
//     rdma_resolve_route. A listener copies its own to the per-device ids
//     it listens with; on RoCE an accepted connection follows the traffic
//     class of the peer's request.
//   - ReuseAddr (RDMA_OPTION_ID_REUSEADDR) and AFOnly (RDMA_OPTION_ID_AFONLY,
//     IPV6_V6ONLY) govern the bind: set before rdma_bind_addr (or the
//     implicit bind of rdma_resolve_addr); the kernel refuses them after.
//   - AckTimeout (RDMA_OPTION_ID_ACK_TIMEOUT, RC only) is the QP's local ACK
//     timeout, 4.096 µs × 2^AckTimeout, put into the QP when it moves to RTS:
//     set before rdma_connect or rdma_accept (SetAckTimeout, on an accepted
//     id).
type Options struct {
	TOS        *uint8
	AckTimeout *uint8
	ReuseAddr  *bool
	AFOnly     *bool
}

// MaxRdAtoms as a connection's responder_resources or initiator_depth is
// librdmacm's "the most allowed" (RDMA_MAX_RESP_RES, RDMA_MAX_INIT_DEPTH):
// the device's limit for a connect, and the least of the request's and
// the device's for an accept.
const MaxRdAtoms = 255

// MaxAckTimeout is the largest ACK timeout exponent: a 5-bit field of the QP.
const MaxAckTimeout = 31

// IsZero reports whether o sets nothing.
func (o Options) IsZero() bool {
	return o.TOS == nil && o.AckTimeout == nil && o.ReuseAddr == nil && o.AFOnly == nil
}

// beforeRoute reports whether o has options that must be set before the
// bind or the route resolution.
func (o Options) beforeRoute() bool {
	return o.TOS != nil || o.ReuseAddr != nil || o.AFOnly != nil
}

func (o Options) validate() error {
	if o.AckTimeout != nil && *o.AckTimeout > MaxAckTimeout {
		return fmt.Errorf("ack_timeout %d is over %d (a 5-bit exponent of 4.096 µs)", *o.AckTimeout, MaxAckTimeout)
	}
	return nil
}

// QPAttrs are the attributes a connected QP really got, as ibv_query_qp
// reports them: what was negotiated and what the options set.
type QPAttrs struct {
	// ResponderResources is max_dest_rd_atomic: RDMA READs and atomics the
	// peer may have outstanding toward this QP.
	ResponderResources int
	// InitiatorDepth is max_rd_atomic: RDMA READs and atomics this QP may
	// have outstanding.
	InitiatorDepth int
	// TrafficClass is the address vector's GRH traffic class (RoCE's
	// type of service); meaningful when Global.
	TrafficClass int
	Global       bool
	// Timeout is the local ACK timeout exponent (4.096 µs × 2^Timeout; 0
	// means infinite).
	Timeout int
}
