//go:build !(linux && cgo)

package rdmacm

import (
	"context"
	"time"
)

// This file gives builds without cgo (or off Linux) the same API, failing
// every call with ErrNotBuilt, so the rest of rdmaform builds and tests
// anywhere.

// Devices fails with ErrNotBuilt.
func Devices() ([]Device, error) { return nil, ErrNotBuilt }

// PD is a protection domain; this build cannot allocate one.
type PD struct{}

// AllocPD fails with ErrNotBuilt.
func AllocPD(string) (*PD, error) { return nil, ErrNotBuilt }

// Device is empty in this build.
func (*PD) Device() string { return "" }

// Close does nothing in this build.
func (*PD) Close() error { return nil }

// AddrInfo is an rdma_getaddrinfo result; this build cannot make one.
type AddrInfo struct {
	Node, Service string
	Passive       bool
	QPType        QPType
	PortSpace     PortSpace
	Family        Family
}

// GetAddrInfo fails with ErrNotBuilt.
func GetAddrInfo(string, string, *Hints) (*AddrInfo, error) { return nil, ErrNotBuilt }

// Close does nothing in this build.
func (*AddrInfo) Close() error { return nil }

// EventChannel is an rdma_event_channel; this build cannot make one.
type EventChannel struct{}

// NewEventChannel fails with ErrNotBuilt.
func NewEventChannel() (*EventChannel, error) { return nil, ErrNotBuilt }

// Err is ErrNotBuilt in this build.
func (*EventChannel) Err() error { return ErrNotBuilt }

// Close does nothing in this build.
func (*EventChannel) Close() error { return nil }

// ID is an rdma_cm_id; this build cannot make one.
type ID struct{}

// CreateEP fails with ErrNotBuilt.
func CreateEP(*AddrInfo, *PD, *QPInit, *EventChannel) (*ID, error) { return nil, ErrNotBuilt }

// DeviceFor fails with ErrNotBuilt.
func DeviceFor(context.Context, string) (string, error) { return "", ErrNotBuilt }

// Dial fails with ErrNotBuilt.
func Dial(context.Context, *AddrInfo, *PD, *QPInit, *EventChannel, time.Duration) (*ID, error) {
	return nil, ErrNotBuilt
}

func (*ID) Listen(int) error                               { return ErrNotBuilt }
func (*ID) NextEvent(context.Context) (Event, error)       { return Event{}, ErrNotBuilt }
func (*ID) OnEvents(func(Event))                           {}
func (*ID) GetRequest(context.Context) (*ID, Event, error) { return nil, Event{}, ErrNotBuilt }
func (*ID) StartAccept(ConnParam) error                    { return ErrNotBuilt }
func (*ID) Accept(context.Context, ConnParam) error        { return ErrNotBuilt }
func (*ID) Reject([]byte) error                            { return ErrNotBuilt }
func (*ID) StartConnect(ConnParam) error                   { return ErrNotBuilt }
func (*ID) Connect(context.Context, ConnParam) (Event, error) {
	return Event{}, ErrNotBuilt
}
func (*ID) Disconnect() error                                   { return ErrNotBuilt }
func (*ID) WaitEvent(context.Context, EventType) (Event, error) { return Event{}, ErrNotBuilt }
func (*ID) PortSpace() PortSpace                                { return 0 }
func (*ID) QPType() QPType                                      { return 0 }
func (*ID) Connectionless() bool                                { return false }
func (*ID) Listener() *ID                                       { return nil }
func (*ID) Facts() (Facts, error)                               { return Facts{}, ErrNotBuilt }
func (*ID) Close() error                                        { return nil }
func (*ID) RegisterBuffer(int) (*Buffer, error)                 { return nil, ErrNotBuilt }
func (*ID) PostRecv(*Buffer, uint64) error                      { return ErrNotBuilt }
func (*ID) PostSend(*Buffer, int, uint64) error                 { return ErrNotBuilt }
func (*ID) WaitSend(context.Context) (Completion, error)        { return Completion{}, ErrNotBuilt }
func (*ID) WaitRecv(context.Context) (Completion, error)        { return Completion{}, ErrNotBuilt }
func (*ID) EchoOnce(context.Context, *Buffer) error             { return ErrNotBuilt }
func (*ID) RoundTrip(context.Context, *Buffer, *Buffer, int) (time.Duration, error) {
	return 0, ErrNotBuilt
}

// Buffer is registered memory; this build cannot make one.
type Buffer struct{}

func (*Buffer) Size() int                { return 0 }
func (*Buffer) Store([]byte) error       { return ErrNotBuilt }
func (*Buffer) Load(int) ([]byte, error) { return nil, ErrNotBuilt }
func (*Buffer) Close() error             { return nil }

// LiveIDs is always 0 in this build.
func LiveIDs() int { return 0 }

// Allocated is false in this build.
func (*PD) Allocated() bool { return false }
