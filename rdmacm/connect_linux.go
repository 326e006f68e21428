//go:build linux && cgo

package rdmacm

/*
#include "shim.h"
*/
import "C"

import (
	"sync"
	"syscall"
)

// The dialling side of an RC connection moves its own QP to RTR and RTS,
// as rdma-core's cmtime does, rather than letting librdmacm do it inside
// rdma_get_cm_event: there it runs on the channel's one event loop, so
// a thousand connects queue their QP transitions behind one another and
// behind every other event of the channel. StartConnect takes the QP off
// the id (librdmacm then hands CONNECT_RESPONSE over untouched), and
// NextEvent answers CONNECT_RESPONSE in the goroutine that waits for the
// connect (rdma_init_qp_attr and ibv_modify_qp to INIT again, RTR and
// RTS, then rdma_establish, as librdmacm does), puts the QP back and
// returns ESTABLISHED, as before.
// While the QP is off the id, calls that use it see it put back for their
// duration (call), with the event loop held off.

// detaches reports whether StartConnect takes the id's QP off it: an
// active RC id with a QP and a receive queue of its own. The caller holds
// id.mu.
func (id *ID) detaches() bool {
	return !id.passive && id.qpType == RC && id.hasQP && id.srq == nil && id.channel != nil && id.cid.qp != nil
}

// connectDetached is rdma_connect with the QP taken off the id. The
// caller holds id.mu. No event of the id can be read before the request
// goes, so the loop need not be held off here.
func (id *ID) connectDetached(cid *C.struct_rdma_cm_id, cp *C.struct_rdma_conn_param) (C.int, error) {
	var saved *C.struct_ibv_qp
	ret, errno := C.rf_connect_detached(cid, cp, &saved)
	id.detachedQP = saved
	return ret, errno
}

// completeConnect answers a CONNECT_RESPONSE of an id whose QP
// StartConnect took off: it returns the ESTABLISHED librdmacm would have,
// or a CONNECT_ERROR naming the call that failed. Other ids' responses
// pass unchanged.
func (id *ID) completeConnect(e Event) Event {
	var step C.int
	var failed error
	done := withCSlot(func() bool {
		id.mu.Lock()
		defer id.mu.Unlock()
		if id.cid == nil || id.detachedQP == nil {
			return false
		}
		ret, errno := C.rf_complete_connect(id.cid, id.detachedQP, C.int(boolInt(portIsIB(id.cid))), &step)
		id.reattachQP()
		if ret != 0 {
			op := [...]string{0: "ibv_modify_qp(INIT)", 1: "ibv_modify_qp(RTR)", 2: "ibv_modify_qp(RTS)", 3: "rdma_establish"}[step]
			failed = opError(op, errno)
		}
		return true
	})
	if !done {
		return e
	}
	if failed != nil {
		status := -int(syscall.EIO)
		if errno, ok := failed.(*OpError).Err.(syscall.Errno); ok {
			status = -int(errno)
		}
		return Event{Type: ConnectError, ID: id, Status: status, Err: failed}
	}
	e.Type = Established
	return e
}

// reattachQP puts a detached QP back on the id, with the event loop held
// off (librdmacm reads id->qp while it takes the id's events). The caller
// holds id.mu.
func (id *ID) reattachQP() {
	if id.detachedQP == nil || id.cid == nil {
		return
	}
	id.channel.reading.RLock()
	id.cid.qp = id.detachedQP
	id.channel.reading.RUnlock()
	id.detachedQP = nil
}

// showQP puts a detached QP on the id for one call and returns what takes
// it off again; the event loop is held off meanwhile. The caller holds
// id.mu.
func (id *ID) showQP() func() {
	if id.detachedQP == nil || id.cid == nil {
		return func() {}
	}
	id.channel.reading.RLock()
	id.cid.qp = id.detachedQP
	return func() {
		if id.cid != nil {
			id.cid.qp = nil
		}
		id.channel.reading.RUnlock()
	}
}

// portLinks caches whether a device's port has the InfiniBand link layer,
// so that a connect does not query the port each time.
var portLinks sync.Map // portKey -> bool

type portKey struct {
	verbs *C.struct_ibv_context
	port  uint8
}

// portIsIB reports whether the id's port has the InfiniBand link layer.
func portIsIB(cid *C.struct_rdma_cm_id) bool {
	k := portKey{cid.verbs, uint8(cid.port_num)}
	if v, ok := portLinks.Load(k); ok {
		return v.(bool)
	}
	ib := C.rf_port_is_ib(cid)
	if ib >= 0 {
		portLinks.Store(k, ib == 1)
	}
	return ib == 1
}
