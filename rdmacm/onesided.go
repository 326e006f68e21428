package rdmacm

// RemoteMemory is a peer's registered memory as RDMA READ and WRITE name
// it: its address in the peer's process, its rkey and its length.
type RemoteMemory struct {
	Addr uint64
	RKey uint32
	Len  uint32
}

// Completion opcodes (ibv_wc_opcode) of the one-sided work requests.
const (
	OpcodeRDMAWrite = 1 // IBV_WC_RDMA_WRITE
	OpcodeRDMARead  = 2 // IBV_WC_RDMA_READ
)
