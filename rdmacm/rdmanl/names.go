package rdmanl

import "fmt"

// CMState is an rdma_cm_id's state in the kernel (enum rdma_cm_state).
type CMState uint8

// The states "rdma resource show cm_id" names.
const (
	CMIdle CMState = iota
	CMAddrQuery
	CMAddrResolved
	CMRouteQuery
	CMRouteResolved
	CMConnect
	CMDisconnect
	CMAddrBound
	CMListen
	CMDeviceRemoval
	CMDestroying
)

var cmStateNames = [...]string{"IDLE", "ADDR_QUERY", "ADDR_RESOLVED", "ROUTE_QUERY", "ROUTE_RESOLVED",
	"CONNECT", "DISCONNECT", "ADDR_BOUND", "LISTEN", "DEVICE_REMOVAL", "DESTROYING"}

func (s CMState) String() string {
	if int(s) < len(cmStateNames) {
		return cmStateNames[s]
	}
	return fmt.Sprintf("CM_STATE_%d", uint8(s))
}

// QPState is a QP's state (enum ib_qp_state), named as rdmacm.Facts names it.
type QPState uint8

var qpStateNames = [...]string{"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR"}

func (s QPState) String() string {
	if int(s) < len(qpStateNames) {
		return qpStateNames[s]
	}
	return fmt.Sprintf("QP_STATE_%d", uint8(s))
}

// QPType is a QP's type (enum ib_qp_type).
type QPType uint8

// The types a QP made through librdmacm has.
const (
	QPTypeRC QPType = 2
	QPTypeUC QPType = 3
	QPTypeUD QPType = 4
)

var qpTypeNames = map[QPType]string{0: "SMI", 1: "GSI", 2: "RC", 3: "UC", 4: "UD", 5: "RAW_IPV6",
	6: "RAW_ETHERTYPE", 8: "RAW_PACKET", 9: "XRC_INI", 10: "XRC_TGT"}

func (t QPType) String() string {
	if n, ok := qpTypeNames[t]; ok {
		return n
	}
	return fmt.Sprintf("QP_TYPE_%d", uint8(t))
}

// PortSpace is an rdma_cm_id's port space (enum rdma_ucm_port_space).
type PortSpace uint32

// The port spaces, as rdmacm and the configuration name them.
const (
	PortSpaceIPoIB PortSpace = 0x0002
	PortSpaceTCP   PortSpace = 0x0106
	PortSpaceUDP   PortSpace = 0x0111
	PortSpaceIB    PortSpace = 0x013F
)

// String is the configuration's word for the port space: tcp, udp, ib, ipoib.
func (p PortSpace) String() string {
	switch p {
	case PortSpaceTCP:
		return "tcp"
	case PortSpaceUDP:
		return "udp"
	case PortSpaceIB:
		return "ib"
	case PortSpaceIPoIB:
		return "ipoib"
	}
	return fmt.Sprintf("ps_%#x", uint32(p))
}
