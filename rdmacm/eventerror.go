package rdmacm

import (
	"fmt"
	"syscall"
)

// EventError is an operation ended by an RDMA CM event other than the one it
// waited for: REJECTED, UNREACHABLE, CONNECT_ERROR, DEVICE_REMOVAL, ...
type EventError struct {
	Op    string
	Event Event
}

// Call is what failed: Op, the call whose outcome the event reports,
// except for a device's removal, which ends whatever the id was doing
// (an established connection, a listen) and is named by itself.
func (e *EventError) Call() string {
	if e.Event.Type == DeviceRemoval {
		return e.Event.Type.String()
	}
	return e.Op
}

func (e *EventError) Error() string {
	if e.Event.Type == DeviceRemoval {
		return fmt.Sprintf("%s: the device was removed", e.Call())
	}
	s := fmt.Sprintf("%s: %s", e.Op, e.Event)
	if n := len(trimZeros(e.Event.PrivateData)); e.Event.Type == Rejected && n > 0 {
		s += fmt.Sprintf(" with %d bytes of private data", n)
	}
	return s
}

// Unwrap maps the event to the errno a socket user would expect, so callers
// can test errors.Is(err, syscall.ECONNREFUSED) and the like.
func (e *EventError) Unwrap() error {
	switch e.Event.Type {
	case Rejected:
		return syscall.ECONNREFUSED
	case Unreachable, ConnectError, AddrError, RouteError:
		if e.Event.Status < 0 {
			return syscall.Errno(-e.Event.Status)
		}
		if e.Event.Type == Unreachable && (e.Event.Status == 1 || e.Event.Status == 2) {
			return syscall.ECONNREFUSED // SIDR: no listener, or refused
		}
		return syscall.EHOSTUNREACH
	case DeviceRemoval:
		return syscall.ENODEV
	case Disconnected:
		return syscall.ECONNRESET
	}
	return nil
}

func trimZeros(b []byte) []byte {
	n := len(b)
	for n > 0 && b[n-1] == 0 {
		n--
	}
	return b[:n]
}
