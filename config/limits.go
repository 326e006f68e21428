package config

// Private data limits of librdmacm, in bytes, for what the user may pass.
// The IB CM carries 92 bytes of private data in a REQ, 196 in a REP, 148
// in a REJ, 216 in a SIDR REQ and 136 in a SIDR REP; for an id bound to an
// IP address the RDMA CM puts its own 36-byte header (cma_hdr) in front of
// the user's data in a REQ and a SIDR REQ. Hence rdma_connect(3):
// 56 bytes on RDMA_PS_TCP, 180 on RDMA_PS_UDP; rdma_accept(3): 196 and 136;
// rdma_reject(3): 148 and 136. The ib port space follows its QP type (a UD
// QP uses SIDR), and ipoib is a datagram port space like udp.
const (
	privateDataConnect   = 56
	privateDataAccept    = 196
	privateDataReject    = 148
	privateDataSIDRReq   = 180
	privateDataSIDRReply = 136
)

// Direction is what private data travels with.
type Direction string

const (
	DirConnect Direction = "connect"
	DirAccept  Direction = "accept"
	DirReject  Direction = "reject"
)

// Datagram reports whether a port space and QP type ("" for the port
// space's natural type) make datagram (UD) ids, which exchange SIDR
// requests and replies rather than connections.
func Datagram(ps PortSpace, qp QPType) bool {
	return ps == PortSpaceUDP || ps == PortSpaceIPoIB || (ps == PortSpaceIB && qp == QPTypeUD)
}

// NaturalQPType is the QP type a port space gives an id without a qp
// block's type: "ud" for udp and ipoib, "rc" for tcp and ib (what
// librdmacm's rdma_create_id and the agent choose).
func NaturalQPType(ps PortSpace) QPType {
	if ps == PortSpaceUDP || ps == PortSpaceIPoIB {
		return QPTypeUD
	}
	return QPTypeRC
}

// PrivateDataLimit is the most private data librdmacm carries in the
// given direction for a port space and QP type ("" when no QP is given:
// the port space's natural type).
func PrivateDataLimit(ps PortSpace, qp QPType, dir Direction) int {
	datagram := Datagram(ps, qp)
	switch {
	case datagram && dir == DirConnect:
		return privateDataSIDRReq
	case datagram:
		return privateDataSIDRReply
	case dir == DirConnect:
		return privateDataConnect
	case dir == DirAccept:
		return privateDataAccept
	default:
		return privateDataReject
	}
}

// Static sanity limits; the device's own limits are checked by
// CheckDevice against a live device.
const (
	maxWRStatic     = 1 << 20 // Soft-RoCE's max_qp_wr, the largest of the devices we know
	maxSGEStatic    = 64      // above any known device's max_sge
	maxInlineStatic = 4096    // bytes a send WQE can carry inline on any known device
)

// MaxProbeSize is the largest probe: the agent echoes and sends probes
// from registered buffers of this size (agent.MaxProbeSize, which a test
// of the agent holds equal to this; config does not import the agent).
const MaxProbeSize = 4096
