package rdmacm

import (
	"errors"
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/rdmaform/rdmaform/rdmacm/nodevice"
)

// ErrNotBuilt is returned by every call of a binary built without cgo or
// for another OS than Linux.
var ErrNotBuilt = errors.New("rdmacm: rdmaform was built without librdmacm (cgo disabled or not Linux); rebuild with CGO_ENABLED=1 on Linux with librdmacm-dev installed")

// ErrClosed is returned by calls on an id, channel or buffer after Close.
var ErrClosed = errors.New("rdmacm: use of a closed resource")

// OpError is a failed librdmacm or verbs call: the call's name and its errno.
type OpError struct {
	Op  string // the C call, for example "rdma_create_ep"
	Err error  // usually a syscall.Errno
	// Detail says what the call was given, when the errno alone does not
	// tell what to change.
	Detail string
}

func (e *OpError) Error() string {
	msg := e.Op + ": " + e.Err.Error()
	if errno, ok := e.Err.(syscall.Errno); ok {
		if name := errnoName(errno); name != "" {
			msg += " (" + name + ")"
		}
		if errno == syscall.ENODEV {
			msg += noDeviceHint()
		}
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

func (e *OpError) Unwrap() error { return e.Err }

func opError(op string, err error) error {
	if err == nil {
		// The call failed without setting errno; report it as EIO rather
		// than as success.
		err = syscall.EIO
	}
	return &OpError{Op: op, Err: err}
}

// noDeviceHint tells the user what to do about ENODEV, which means either
// that the host has no RDMA device or that none serves the address.
func noDeviceHint() string {
	if nodevice.OnThisHost() {
		return ": " + nodevice.Help
	}
	return ": no RDMA device serves this address (check `rdma link` and that the address " +
		"is on the device's netdev; Soft-RoCE on lo cannot carry connections)"
}

// errnoName is errno's symbolic name ("ECONNREFUSED"), as rdma-core's
// tools and the agent's ErrorInfo give it; "" for a number without one.
func errnoName(e syscall.Errno) string { return unix.ErrnoName(e) }

// AddrInfoError is an EAI_* failure of rdma_getaddrinfo (name resolution),
// distinct from the errno failures of the RDMA stack.
type AddrInfoError struct {
	Code    int // the EAI_* value, negative as in netdb.h
	Node    string
	Service string
}

// glibc's EAI_* values (netdb.h).
const (
	EAIBadFlags   = -1
	EAINoName     = -2
	EAIAgain      = -3
	EAIFail       = -4
	EAINoData     = -5
	EAIFamily     = -6
	EAISockType   = -7
	EAIService    = -8
	EAIAddrFamily = -9
	EAIMemory     = -10
	EAISystem     = -11
	EAIOverflow   = -12
)

var eaiText = map[int][2]string{
	EAIBadFlags:   {"EAI_BADFLAGS", "bad value for ai_flags"},
	EAINoName:     {"EAI_NONAME", "name or service not known"},
	EAIAgain:      {"EAI_AGAIN", "temporary failure in name resolution"},
	EAIFail:       {"EAI_FAIL", "non-recoverable failure in name resolution"},
	EAINoData:     {"EAI_NODATA", "no address associated with hostname"},
	EAIFamily:     {"EAI_FAMILY", "address family not supported"},
	EAISockType:   {"EAI_SOCKTYPE", "socket type not supported"},
	EAIService:    {"EAI_SERVICE", "service not supported for socket type"},
	EAIAddrFamily: {"EAI_ADDRFAMILY", "address family for hostname not supported"},
	EAIMemory:     {"EAI_MEMORY", "memory allocation failure"},
	EAIOverflow:   {"EAI_OVERFLOW", "argument buffer overflow"},
}

func (e *AddrInfoError) Error() string {
	t, ok := eaiText[e.Code]
	if !ok {
		t = [2]string{fmt.Sprintf("EAI %d", e.Code), "unknown error"}
	}
	return fmt.Sprintf("rdma_getaddrinfo(%q, %q): %s (%s)", e.Node, e.Service, t[1], t[0])
}

// Name is the EAI_* constant's name, for example "EAI_NONAME".
func (e *AddrInfoError) Name() string { return eaiText[e.Code][0] }
