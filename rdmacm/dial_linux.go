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
)

// resolveTimeoutMs is how long address and route resolution may take, as
// rdma_create_ep allows them.
const resolveTimeoutMs = 2000

// Dial creates an active id toward ai's destination as CreateEP does, but
// resolves its address and route asynchronously on ch (rdma_create_id,
// rdma_resolve_addr, rdma_resolve_route), waiting for ADDR_RESOLVED and
// ROUTE_RESOLVED in Go rather than in librdmacm. Many Dials in parallel thus
// overlap their resolution without parking a thread each, as cmtime does;
// rdmaform uses it to bring up many endpoints at once. The id has a QP when
// qp is not nil and is ready to Connect.
//
// QP types other than the port space's own (UC in the TCP port space) need
// rdma_create_ep, which Dial then uses.
func Dial(ctx context.Context, ai *AddrInfo, pd *PD, qp *QPInit, ch *EventChannel) (*ID, error) {
	if ch == nil {
		return nil, errors.New("rdma_create_id: an EventChannel is required: rdmaform runs every id asynchronously")
	}
	if ai.Passive {
		return nil, errors.New("rdma_resolve_addr: the address info is passive (RAI_PASSIVE): use CreateEP and Listen")
	}
	if ai.QPType != DefaultQPType(ai.PortSpace) {
		return CreateEP(ai, pd, qp, ch)
	}
	if qp != nil {
		if err := qp.Validate(limitsFor(pd)); err != nil {
			return nil, fmt.Errorf("rdma_create_id: %w", err)
		}
	}
	id := newID(ch, ai.PortSpace, ai.QPType)
	if err := id.enroll(ch); err != nil {
		return nil, err
	}
	err := withCSlot(func() error {
		if ret, errno := C.rf_create_id(ch.ch, &id.cid, C.uintptr_t(id.key), C.int(ai.PortSpace)); ret != 0 {
			return opError("rdma_create_id", errno)
		}
		return nil
	})
	if err != nil {
		id.cid = nil
		id.destroy()
		return nil, err
	}
	if err := id.resolve(ctx, ai); err != nil {
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

// resolve resolves the id's address, then its route (or sets the IB path
// records rdma_getaddrinfo found), waiting for each event.
func (id *ID) resolve(ctx context.Context, ai *AddrInfo) error {
	var hasRoute bool
	err := ai.use(func(cai *C.struct_rdma_addrinfo) error {
		hasRoute = C.rf_has_route(cai) != 0
		return id.slowCall("rdma_resolve_addr", func(cid *C.struct_rdma_cm_id) (C.int, error) {
			ret, errno := C.rf_resolve(cid, cai, resolveTimeoutMs)
			return ret, errno
		})
	})
	if err != nil {
		return err
	}
	if err := id.expect(ctx, "rdma_resolve_addr", AddrResolved); err != nil {
		return err
	}
	if hasRoute {
		return ai.use(func(cai *C.struct_rdma_addrinfo) error {
			return id.call("rdma_set_option(RDMA_OPTION_IB_PATH)", func(cid *C.struct_rdma_cm_id) (C.int, error) {
				ret, errno := C.rf_set_route(cid, cai)
				return ret, errno
			})
		})
	}
	err = id.slowCall("rdma_resolve_route", func(cid *C.struct_rdma_cm_id) (C.int, error) {
		ret, errno := C.rdma_resolve_route(cid, resolveTimeoutMs)
		return ret, errno
	})
	if err != nil {
		return err
	}
	return id.expect(ctx, "rdma_resolve_route", RouteResolved)
}

// expect waits for one event of type t, which ends op.
func (id *ID) expect(ctx context.Context, op string, t EventType) error {
	e, err := id.NextEvent(ctx)
	if err != nil {
		return fmt.Errorf("%s: waiting for %s: %w", op, t, err)
	}
	if e.Type != t {
		return &EventError{Op: op, Event: e}
	}
	return nil
}
