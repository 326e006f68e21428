//go:build !(linux && cgo)

package rdmacm

func (*ID) RegisterRemoteBuffer(int) (*Buffer, error)          { return nil, ErrNotBuilt }
func (*Buffer) Remote() (RemoteMemory, error)                  { return RemoteMemory{}, ErrNotBuilt }
func (*ID) PostWrite(*Buffer, int, RemoteMemory, uint64) error { return ErrNotBuilt }
func (*ID) PostRead(*Buffer, int, RemoteMemory, uint64) error  { return ErrNotBuilt }
