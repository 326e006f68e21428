package rdmacm

import (
	"fmt"
	"net/netip"
)

// Facts are what an id is, live: its addresses, device and QP.
type Facts struct {
	Local   netip.AddrPort
	Remote  netip.AddrPort
	Device  string // empty until the id is bound to a device
	PortNum int
	HasQP   bool
	QPNum   uint32
	// RemoteQPNum is the peer's QP number on a connected RC or UC QP
	// (the QP's dest_qp_num), or, on a UD QP, the QP the SIDR reply
	// named; 0 when unknown: not connected yet, or a UD listener's.
	RemoteQPNum uint32
	// RemoteQKey is the Q_Key the SIDR reply gave a UD id, 0 otherwise.
	RemoteQKey uint32
	QPType     QPType
	QPState    string // RESET, INIT, RTR, RTS, SQD, SQE, ERR; "" without a QP
}

func qpStateName(s int) string {
	names := []string{"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR"}
	if s >= 0 && s < len(names) {
		return names[s]
	}
	if s < 0 {
		return "UNKNOWN"
	}
	return fmt.Sprintf("QP_STATE_%d", s)
}
