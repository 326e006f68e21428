package rdmanl

import "net/netip"

// Owner is who made a resource: a user process (PID, the thread that
// made it) or the kernel itself (KernName, such as "rdma_cm" or "ib_core").
type Owner struct {
	PID      uint32
	KernName string
}

// CMID is one rdma_cm_id as the kernel tracks it.
type CMID struct {
	Device      string
	DeviceIndex uint32
	Port        uint32 // 0 until the id is bound to a port
	Number      uint32 // RDMA_NLDEV_ATTR_RES_CM_IDN, the kernel's index
	State       CMState
	PortSpace   PortSpace
	// Src and Dst are the addresses with their ports; invalid when the
	// kernel gave none (Dst of a listener).
	Src, Dst netip.AddrPort
	// HasQP: the id has a QP (its number is QPNum, its type QPType).
	HasQP  bool
	QPNum  uint32
	QPType QPType
	Owner
}

// QP is one queue pair as the kernel tracks it.
type QP struct {
	Device      string
	DeviceIndex uint32
	Port        uint32 // 0 before the QP reached INIT on a port
	Number      uint32 // RDMA_NLDEV_ATTR_RES_LQPN
	Remote      uint32 // RDMA_NLDEV_ATTR_RES_RQPN: 0 when none (UD) or unknown
	Type        QPType
	State       QPState
	PDN         uint32 // its protection domain's index, 0 when not given
	Owner
}

// Device is an RDMA device as the kernel names it.
type Device struct {
	Index uint32
	Name  string
}
