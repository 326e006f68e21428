package rdmacm

// GRHSize is the room a UD receive needs in front of each message: the
// device writes the packet's Global Routing Header there (40 bytes; on
// RoCE v2 over IPv4, 20 unused bytes and then the IPv4 header), so a UD
// receive buffer is the largest message plus GRHSize, and the message
// starts at offset GRHSize of it. Completion.Bytes counts the GRH too.
const GRHSize = 40

// udSource is a UD receive's sender as its work completion names it: what
// an address handle back to it is made from (with the GRH).
type udSource struct {
	wcFlags  uint32
	slid     uint16
	sl       uint8
	pathBits uint8
}
