package rdmanl

// The netlink family and the nldev client (rdma_netlink.h).
const (
	familyRDMA  = 20 // NETLINK_RDMA
	clientNLDev = 5  // RDMA_NL_NLDEV
)

// nldev commands (enum rdma_nldev_command) that this package sends.
const (
	cmdGet        = 1  // RDMA_NLDEV_CMD_GET: the devices
	cmdResQPGet   = 10 // RDMA_NLDEV_CMD_RES_QP_GET
	cmdResCMIDGet = 11 // RDMA_NLDEV_CMD_RES_CM_ID_GET
)

// messageType is RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd).
func messageType(cmd uint16) uint16 { return clientNLDev<<10 + cmd }

// nldev attributes (enum rdma_nldev_attr) that this package reads.
const (
	attrDevIndex     = 1  // u32
	attrDevName      = 2  // string
	attrPortIndex    = 3  // u32
	attrResQP        = 19 // nested table
	attrResQPEntry   = 20 // nested table
	attrResLQPN      = 21 // u32
	attrResRQPN      = 22 // u32
	attrResType      = 26 // u8: the QP's type
	attrResState     = 27 // u8: a QP's or cm_id's state
	attrResPID       = 28 // u32
	attrResKernName  = 29 // string: the kernel's own objects
	attrResCMID      = 30 // nested table
	attrResCMIDEntry = 31 // nested table
	attrResPS        = 32 // u32: the port space
	attrResSrcAddr   = 33 // struct __kernel_sockaddr_storage
	attrResDstAddr   = 34 // struct __kernel_sockaddr_storage
	attrResPDN       = 60 // u32
	attrResCMIDN     = 63 // u32
)
