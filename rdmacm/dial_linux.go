//go:build linux && cgo

package rdmacm

/*
#include "shim.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// defaultResolveTimeout is how long address and route resolution may each
// take unless told, as rdma_create_ep and rping allow them.
const defaultResolveTimeout = 2 * time.Second

// resolveTimeoutMs is the timeout_ms rdma_resolve_addr and
// rdma_resolve_route get: the time left before ctx's deadline (which
// resolve always sets); at least 1 ms, since the kernel reads 0 as its own
// default.
func resolveTimeoutMs(ctx context.Context) C.int {
	d := defaultResolveTimeout
	if deadline, ok := ctx.Deadline(); ok {
		d = time.Until(deadline)
	}
	return C.int(max(d.Milliseconds(), 1))
}

// Dial creates an active id toward ai's destination as CreateEP does, but
// resolves its address and route asynchronously on ch (rdma_create_id,
// rdma_resolve_addr, rdma_resolve_route), waiting for ADDR_RESOLVED and
// ROUTE_RESOLVED in Go rather than in librdmacm. Many Dials in parallel thus
// overlap their resolution without parking a thread each, as cmtime does;
// rdmaform uses it to bring up many endpoints at once. The id has a QP when
// qp is not nil and is ready to Connect. Address and route resolution may
// each take resolveTimeout (2 s when 0) from when it starts, so time spent
// waiting for the C calls of a thousand other Dials does not count; ctx's
// deadline or cancellation ends them sooner. A resolution that runs out
// fails with ETIMEDOUT, as the kernel's ADDR_ERROR or ROUTE_ERROR says.
//
// QP types other than the port space's own (UC in the TCP port space) need
// rdma_create_ep, which Dial then uses.
func Dial(ctx context.Context, ai *AddrInfo, pd *PD, qp *QPInit, ch *EventChannel, resolveTimeout time.Duration) (*ID, error) {
	return DialWith(ctx, ai, pd, qp, ch, resolveTimeout, Options{})
}

// DialWith is Dial with options, set on the new id before it resolves its
// address (which binds it) and its route (which reads the type of
// service).
func DialWith(ctx context.Context, ai *AddrInfo, pd *PD, qp *QPInit, ch *EventChannel, resolveTimeout time.Duration, o Options) (*ID, error) {
	if ch == nil {
		return nil, errors.New("rdma_create_id: an EventChannel is required: rdmaform runs every id asynchronously")
	}
	if ai.Passive {
		return nil, errors.New("rdma_resolve_addr: the address info is passive (RAI_PASSIVE): use CreateEP and Listen")
	}
	if ai.QPType != DefaultQPType(ai.PortSpace) {
		return createEPActive(ai, pd, qp, ch, o)
	}
	if qp != nil {
		if err := qp.Validate(limitsFor(pd)); err != nil {
			return nil, fmt.Errorf("rdma_create_id: %w", err)
		}
	}
	id, err := createID(ch, ai)
	if err != nil {
		return nil, err
	}
	if err := id.setOptions(o); err != nil {
		id.Close()
		return nil, err
	}
	if resolveTimeout <= 0 {
		resolveTimeout = defaultResolveTimeout
	}
	if err := id.resolve(ctx, ai, resolveTimeout); err != nil {
		id.Close()
		return nil, err
	}
	if qp != nil {
		if err := id.createQP(pd, *qp); err != nil {
			id.Close()
			return nil, err
		}
	}
	return id, nil
}

// createEPActive is rdma_create_ep's way for the QP types rdma_create_id
// cannot make: it binds and resolves the route at once, so only the ACK
// timeout, set afterwards, can be among the options.
func createEPActive(ai *AddrInfo, pd *PD, qp *QPInit, ch *EventChannel, o Options) (*ID, error) {
	if o.beforeRoute() {
		return nil, fmt.Errorf("rdma_set_option: a %s QP in the %s port space is made by rdma_create_ep, which binds and resolves the route at once: type_of_service, reuse_address and ipv6_only cannot be set before them", ai.QPType, ai.PortSpace)
	}
	id, err := CreateEP(ai, pd, qp, ch)
	if err != nil || o.AckTimeout == nil {
		return id, err
	}
	if err := id.SetAckTimeout(*o.AckTimeout); err != nil {
		id.Close()
		return nil, err
	}
	return id, nil
}

// resolve resolves the id's address, then its route (or sets the IB path
// records rdma_getaddrinfo found), waiting for each event, each within
// timeout.
func (id *ID) resolve(ctx context.Context, ai *AddrInfo, timeout time.Duration) error {
	var hasRoute bool
	addrCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	err := ai.use(func(cai *C.struct_rdma_addrinfo) error {
		hasRoute = C.rf_has_route(cai) != 0
		return id.slowCall("rdma_resolve_addr", func(cid *C.struct_rdma_cm_id) (C.int, error) {
			ret, errno := C.rf_resolve(cid, cai, resolveTimeoutMs(addrCtx))
			return ret, errno
		})
	})
	if err != nil {
		return err
	}
	if err := expectEvent(addrCtx, id.NextEvent, "rdma_resolve_addr", AddrResolved); err != nil {
		return err
	}
	routeCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	setPath := func() error {
		return ai.use(func(cai *C.struct_rdma_addrinfo) error {
			return id.call("rdma_set_option(RDMA_OPTION_IB_PATH)", func(cid *C.struct_rdma_cm_id) (C.int, error) {
				ret, errno := C.rf_set_route(cid, cai)
				return ret, errno
			})
		})
	}
	resolveRoute := func() error {
		return id.slowCall("rdma_resolve_route", func(cid *C.struct_rdma_cm_id) (C.int, error) {
			ret, errno := C.rdma_resolve_route(cid, resolveTimeoutMs(routeCtx))
			return ret, errno
		})
	}
	return routeStep(routeCtx, hasRoute, setPath, resolveRoute, id.NextEvent)
}
