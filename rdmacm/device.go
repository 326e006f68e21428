package rdmacm

import "fmt"

// Device is an RDMA device as librdmacm sees it, with the limits a planner
// checks a configuration against.
type Device struct {
	Name      string // for example "rxe0" or "mlx5_0"
	GUID      string // node GUID, as ibv_devinfo prints it: 0011:2233:4455:6677
	NodeType  string // "CA", "switch", "router", "RNIC", ...
	Transport string // "InfiniBand", "iWARP", "usNIC", "unspecified"
	Ports     []Port
	Limits    Limits
}

// Port is one port of a device (numbered from 1).
type Port struct {
	Num       int
	State     string // PORT_ACTIVE, PORT_DOWN, ... as ibv_devinfo prints them
	ActiveMTU int    // bytes
	LinkLayer string // "Ethernet" (RoCE) or "InfiniBand"
}

// Limits are the device attributes that bound what a configuration may ask.
type Limits struct {
	MaxQP            int
	MaxQPWR          int
	MaxSGE           int
	MaxCQE           int
	MaxMR            int
	MaxPD            int
	MaxQPRdAtom      int // most responder resources per QP
	MaxQPInitRdAtom  int // most initiator depth per QP
	PhysicalPortsNum int
	MaxSRQ           int // shared receive queues (0: the device has none)
	MaxSRQWR         int // receives one SRQ holds
	MaxSRQSGE        int
}

func nodeTypeName(t int) string {
	switch t {
	case 1:
		return "CA"
	case 2:
		return "switch"
	case 3:
		return "router"
	case 4:
		return "RNIC"
	case 5:
		return "usNIC"
	case 6:
		return "usNIC UDP"
	case 7:
		return "unspecified"
	}
	return fmt.Sprintf("unknown (%d)", t)
}

func transportName(t int) string {
	switch t {
	case 0:
		return "InfiniBand"
	case 1:
		return "iWARP"
	case 2:
		return "usNIC"
	case 3:
		return "usNIC UDP"
	case 4:
		return "unspecified"
	}
	return fmt.Sprintf("unknown (%d)", t)
}

func portStateName(s int) string {
	names := []string{"PORT_NOP", "PORT_DOWN", "PORT_INIT", "PORT_ARMED", "PORT_ACTIVE", "PORT_ACTIVE_DEFER"}
	if s >= 0 && s < len(names) {
		return names[s]
	}
	return fmt.Sprintf("PORT_STATE_%d", s)
}

func mtuBytes(enum int) int {
	if enum >= 1 && enum <= 5 {
		return 128 << enum
	}
	return 0
}

func linkLayerName(l int) string {
	switch l {
	case 1:
		return "InfiniBand"
	case 2:
		return "Ethernet"
	}
	return "unspecified"
}

// formatGUID prints a GUID given in network byte order (as
// ibv_get_device_guid returns it) the way ibv_devinfo does.
func formatGUID(beGUID uint64) string {
	// The value's bytes in memory are the GUID's bytes in order; on a
	// little-endian host they come out reversed from the integer.
	var b [8]byte
	for i := range b {
		b[i] = byte(beGUID >> (8 * i))
	}
	return fmt.Sprintf("%02x%02x:%02x%02x:%02x%02x:%02x%02x", b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7])
}
