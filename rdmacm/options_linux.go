//go:build linux && cgo

package rdmacm

/*
#include "shim.h"
*/
import "C"

import (
	"errors"
	"fmt"
)

// setOptions sets o's options that must come before the bind and the route
// resolution, and the ACK timeout, on a new id. The caller owns id alone.
func (id *ID) setOptions(o Options) error {
	if err := o.validate(); err != nil {
		return fmt.Errorf("rdma_set_option: %w", err)
	}
	set := func(op string, name C.int, v int) error {
		return id.call(op, func(cid *C.struct_rdma_cm_id) (C.int, error) {
			ret, errno := C.rf_set_option(cid, name, C.int(v))
			return ret, errno
		})
	}
	if o.ReuseAddr != nil {
		if err := set("rdma_set_option(RDMA_OPTION_ID_REUSEADDR)", C.RDMA_OPTION_ID_REUSEADDR, int(boolInt(*o.ReuseAddr))); err != nil {
			return err
		}
	}
	if o.AFOnly != nil {
		if err := set("rdma_set_option(RDMA_OPTION_ID_AFONLY)", C.RDMA_OPTION_ID_AFONLY, int(boolInt(*o.AFOnly))); err != nil {
			return err
		}
	}
	if o.TOS != nil {
		if err := set("rdma_set_option(RDMA_OPTION_ID_TOS)", C.RDMA_OPTION_ID_TOS, int(*o.TOS)); err != nil {
			return err
		}
	}
	if o.AckTimeout != nil {
		return id.SetAckTimeout(*o.AckTimeout)
	}
	return nil
}

// SetAckTimeout sets the QP's local ACK timeout (RDMA_OPTION_ID_ACK_TIMEOUT,
// 4.096 µs × 2^t) on an RC id before it connects or accepts (on an
// accepted id, its own: each request comes with a new id).
func (id *ID) SetAckTimeout(t uint8) error {
	if t > MaxAckTimeout {
		return fmt.Errorf("rdma_set_option(RDMA_OPTION_ID_ACK_TIMEOUT): %d is over %d (a 5-bit exponent of 4.096 µs)", t, MaxAckTimeout)
	}
	if id.qpType != RC {
		return fmt.Errorf("rdma_set_option(RDMA_OPTION_ID_ACK_TIMEOUT): the ACK timeout is an RC QP's, and this id's QP is %s", id.qpType)
	}
	return id.call("rdma_set_option(RDMA_OPTION_ID_ACK_TIMEOUT)", func(cid *C.struct_rdma_cm_id) (C.int, error) {
		ret, errno := C.rf_set_option(cid, C.RDMA_OPTION_ID_ACK_TIMEOUT, C.int(t))
		return ret, errno
	})
}

// CreateEPWith is CreateEP with options. A passive id with options that
// must precede the bind is made with rdma_create_id, given them, and bound
// with rdma_bind_addr, which is what rdma_create_ep does with no chance to
// set anything between; an active one goes through DialWith's steps.
func CreateEPWith(ai *AddrInfo, pd *PD, qp *QPInit, ch *EventChannel, o Options) (*ID, error) {
	if o.IsZero() {
		return CreateEP(ai, pd, qp, ch)
	}
	if ch == nil {
		return nil, errors.New("rdma_create_id: an EventChannel is required: rdmaform runs every id asynchronously")
	}
	if !ai.Passive {
		return nil, errors.New("rdma_create_id: options on an active id need DialWith, which resolves the route after setting them")
	}
	if ai.QPType != DefaultQPType(ai.PortSpace) {
		return nil, fmt.Errorf("rdma_set_option: a %s listener in the %s port space is made by rdma_create_ep, which binds at once: its options cannot be set before the bind", ai.QPType, ai.PortSpace)
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
	id.passive = true
	if err := id.setOptions(o); err != nil {
		id.Close()
		return nil, err
	}
	err = ai.use(func(cai *C.struct_rdma_addrinfo) error {
		return id.call("rdma_bind_addr", func(cid *C.struct_rdma_cm_id) (C.int, error) {
			ret, errno := C.rf_bind(cid, cai)
			return ret, errno
		})
	})
	if err != nil {
		id.Close()
		return nil, err
	}
	if qp != nil {
		q := *qp
		id.requestPD, id.requestQP = pd, &q
	}
	return id, nil
}

// createID makes an id on ch with rdma_create_id, registered under its key.
func createID(ch *EventChannel, ai *AddrInfo) (*ID, error) {
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
	return id, nil
}

// QPAttrs queries the id's QP (ibv_query_qp) for the attributes its
// connection really got. ok is false when the id has no QP or the QP is
// not connected yet (before RTR nothing is negotiated).
func (id *ID) QPAttrs() (a QPAttrs, ok bool, err error) {
	var out C.struct_rf_qp_attrs
	err = id.call("ibv_query_qp", func(cid *C.struct_rdma_cm_id) (C.int, error) {
		ret, errno := C.rf_query_qp_attrs(cid, &out)
		return ret, errno
	})
	if err != nil || out.connected == 0 {
		return QPAttrs{}, false, err
	}
	return QPAttrs{
		ResponderResources: int(out.max_dest_rd_atomic), InitiatorDepth: int(out.max_rd_atomic),
		TrafficClass: int(out.traffic_class), Global: out.is_global != 0, Timeout: int(out.timeout),
	}, true, nil
}

// DeviceLimits are the limits of the device the id is bound to (cached:
// they are fixed for a device's life).
func (id *ID) DeviceLimits() (Limits, error) {
	var name string
	err := id.call("rdma_cm_id device", func(cid *C.struct_rdma_cm_id) (C.int, error) {
		if cid.verbs == nil {
			return -1, errNoDevice
		}
		name = C.GoString(C.ibv_get_device_name(cid.verbs.device))
		return 0, nil
	})
	if err != nil {
		return Limits{}, err
	}
	if l := limitsOf(name); l != nil {
		return *l, nil
	}
	return Limits{}, fmt.Errorf("ibv_query_device: %s's limits could not be read", name)
}
