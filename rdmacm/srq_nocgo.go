//go:build !(linux && cgo)

package rdmacm

// SRQ is a shared receive queue; this build cannot make one.
type SRQ struct{}

// UseSRQ fails with ErrNotBuilt.
func (*ID) UseSRQ(SRQInit) error { return ErrNotBuilt }

// SRQ is nil in this build.
func (*ID) SRQ() *SRQ { return nil }

// PostSendSRQ fails with ErrNotBuilt.
func (*ID) PostSendSRQ(int, int, uint64) error { return ErrNotBuilt }

// Repost fails with ErrNotBuilt.
func (*SRQ) Repost(int) error { return ErrNotBuilt }

// Stats are empty in this build.
func (*SRQ) Stats() SRQStats { return SRQStats{} }

// Close does nothing in this build.
func (*SRQ) Close() error { return nil }
