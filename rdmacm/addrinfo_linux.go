//go:build linux && cgo

package rdmacm

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"syscall"
	"unsafe"
)

// AddrInfo is the result of rdma_getaddrinfo: where to listen or what to
// connect to, with the QP type and port space that ids created from it use.
type AddrInfo struct {
	mu        sync.RWMutex // read-held by calls using ai, so Close waits for them
	ai        *C.struct_rdma_addrinfo
	Node      string
	Service   string
	Passive   bool
	QPType    QPType
	PortSpace PortSpace
	Family    Family
}

// GetAddrInfo resolves node and service (a port number) with
// rdma_getaddrinfo. hints may be nil, which librdmacm reads as an active RC
// endpoint in the TCP port space. It may run in several goroutines at once:
// rdma_getaddrinfo keeps no state of its own but librdmacm's
// initialisation and ibacm connection, each under its own lock, and
// getaddrinfo is thread-safe.
func GetAddrInfo(node, service string, hints *Hints) (*AddrInfo, error) {
	passive := hints != nil && hints.Flags&Passive != 0
	if err := checkService(service, passive); err != nil {
		return nil, err
	}
	var cnode, cservice *C.char
	if node != "" {
		cnode = C.CString(node)
		defer C.free(unsafe.Pointer(cnode))
	}
	if service != "" {
		cservice = C.CString(service)
		defer C.free(unsafe.Pointer(cservice))
	}
	var h Hints
	useHints := C.int(0)
	if hints != nil {
		h, useHints = *hints, 1
	}
	var csrc *C.char
	if h.Source != "" {
		if passive {
			return nil, errors.New("rdma_getaddrinfo: a source address is for an active endpoint; a passive one binds to its own address")
		}
		csrc = C.CString(h.Source)
		defer C.free(unsafe.Pointer(csrc))
	}
	var ai *C.struct_rdma_addrinfo
	var srcFailed C.int
	ret, errno := C.rf_getaddrinfo(cnode, cservice, useHints, C.int(h.Flags), C.int(h.Family),
		C.int(h.QPType), C.int(h.PortSpace), csrc, &srcFailed, &ai)
	if ret != 0 {
		if srcFailed != 0 {
			return nil, fmt.Errorf("source address %s: %w", h.Source, getaddrinfoError(int(ret), errno, h.Source, ""))
		}
		return nil, getaddrinfoError(int(ret), errno, node, service)
	}
	var qpType, ps, family C.int
	C.rf_addrinfo_type(ai, &qpType, &ps, &family)
	return &AddrInfo{
		ai: ai, Node: node, Service: service, Passive: passive,
		QPType: QPType(qpType), PortSpace: PortSpace(ps), Family: Family(family),
	}, nil
}

// getaddrinfoError tells librdmacm's own failures (-1 with errno) from
// getaddrinfo's EAI_* codes. EAI_BADFLAGS is also -1, but rdmaform never
// passes flags getaddrinfo rejects, and librdmacm always sets errno.
func getaddrinfoError(ret int, errno error, node, service string) error {
	if ret == -1 || ret == EAISystem {
		if e, ok := errno.(syscall.Errno); ok && e != 0 {
			return opError("rdma_getaddrinfo", e)
		}
	}
	return &AddrInfoError{Code: ret, Node: node, Service: service}
}

// Close frees the result. It is idempotent.
func (a *AddrInfo) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ai != nil {
		C.rdma_freeaddrinfo(a.ai)
		a.ai = nil
	}
	return nil
}

// use runs f with the live result; concurrent uses run in parallel.
func (a *AddrInfo) use(f func(*C.struct_rdma_addrinfo) error) error {
	a.mu.RLock()
	defer a.mu.RUnlock()
	if a.ai == nil {
		return ErrClosed
	}
	return f(a.ai)
}
