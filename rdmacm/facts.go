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
	QPType  QPType
	QPState string // RESET, INIT, RTR, RTS, SQD, SQE, ERR; "" without a QP
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
