//go:build !(linux && cgo)

package rdmacm

// UDPeer is never known in this build.
func (*ID) UDPeer() (qpNum, qkey uint32, ok bool) { return 0, 0, false }

// Reply fails with ErrNotBuilt.
func (*ID) Reply(*Buffer, Completion, uint64) error { return ErrNotBuilt }

// LoadAt fails with ErrNotBuilt.
func (*Buffer) LoadAt(int, int) ([]byte, error) { return nil, ErrNotBuilt }
