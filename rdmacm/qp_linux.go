//go:build linux && cgo

package rdmacm

/*
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"syscall"
	"unsafe"
)

// createPooledQP creates the id's QP on a CQ of pool with room for it,
// counting the queue depths the provider gave, which may exceed those
// asked (rxe rounds each up to a power of two, less one): a CQ sized from
// the asked ones could overflow, and an overflow fails every QP on it.
// When the CQ has no room for what was given, the QP is made again on one
// that has. The caller holds id.mu; it returns the CQ and the QP's share.
func (id *ID) createPooledQP(pool *cqPool, pd *C.struct_ibv_pd, q QPInit, verbs *C.struct_ibv_context) (*sharedCQ, int, error) {
	want := int(q.MaxSendWR + q.MaxRecvWR)
	for attempt := 0; ; attempt++ {
		cq, err := pool.reserve(want)
		if err != nil {
			return nil, 0, err
		}
		caps := C.struct_rf_qp_caps{
			max_send_wr: C.uint32_t(q.MaxSendWR), max_recv_wr: C.uint32_t(q.MaxRecvWR),
			max_send_sge: C.uint32_t(q.MaxSendSGE), max_recv_sge: C.uint32_t(q.MaxRecvSGE),
			max_inline_data: C.uint32_t(q.MaxInlineData),
		}
		ret, errno := withCSlot(func() qpResult {
			ret, errno := C.rf_create_qp(id.cid, pd, cq.cq, C.int(id.qpType), C.uintptr_t(id.key), &caps, boolInt(q.SQSigAll))
			return qpResult{ret, errno}
		}).split()
		if ret != 0 {
			pool.release(cq, want)
			return nil, 0, qpError(errno, q, verbs)
		}
		got := int(caps.max_send_wr) + int(caps.max_recv_wr)
		if got <= want || pool.grow(cq, got-want) {
			return cq, max(got, want), nil
		}
		// No room on this CQ for what the provider gave: make the QP
		// again where there is (it gets the same caps).
		id.channel.destroyQP(id.cid)
		pool.release(cq, want)
		if attempt > 0 {
			return nil, 0, &OpError{Op: "rdma_create_qp", Err: syscall.ENOSPC,
				Detail: fmt.Sprintf("no completion queue has room for the %d entries the QP was given", got)}
		}
		want = got
	}
}

// queueDepths are the send and receive queue depths of the id's QP as the
// device reports them (ibv_query_qp), and the CQ entries the binding
// counts for it.
func (id *ID) queueDepths() (send, recv, counted int, err error) {
	var caps C.struct_rf_qp_caps
	err = id.call("ibv_query_qp", func(cid *C.struct_rdma_cm_id) (C.int, error) {
		ret, errno := C.rf_query_caps(cid, &caps)
		return ret, errno
	})
	return int(caps.max_send_wr), int(caps.max_recv_wr), id.cqShare, err
}

func qpError(errno error, q QPInit, verbs *C.struct_ibv_context) error {
	err := &OpError{Op: "rdma_create_qp", Err: memlockHint(errno)}
	if errno == nil {
		err.Err = syscall.EIO
	}
	if errno == syscall.EINVAL {
		// The limits ibv_query_device reports are checked before
		// (QPInit.Validate); the inline data size has none to check.
		err.Detail = fmt.Sprintf("%s refused the QP (max_send_wr %d, max_recv_wr %d, max_send_sge %d, max_recv_sge %d, max_inline_data %d); "+
			"max_inline_data is the one cap not checked against the device's limits beforehand (the device reports none): try a smaller one",
			C.GoString(C.ibv_get_device_name(verbs.device)), q.MaxSendWR, q.MaxRecvWR, q.MaxSendSGE, q.MaxRecvSGE, q.MaxInlineData)
	}
	return err
}

// errNoDevice is the errno of a device that is gone or going.
var errNoDevice error = syscall.ENODEV

// unsafeSlice views a NULL-terminated C array of n contexts as a slice.
func unsafeSlice(list **C.struct_ibv_context, n int) []*C.struct_ibv_context {
	return unsafe.Slice(list, n)
}
