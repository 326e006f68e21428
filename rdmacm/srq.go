package rdmacm

// SRQInit is what a listener's SRQ is made with.
type SRQInit struct {
	MaxWR  uint32 // receives posted, one slot each
	MaxSGE uint32
	// SlotSize is each receive's buffer, in bytes: the largest message a
	// connection may send.
	SlotSize int
}

// SRQStats are an SRQ as it is now.
type SRQStats struct {
	MaxWR, MaxSGE int // as the device gave them
	Posted        int // receives posted and not yet completed
	Device        string
}
