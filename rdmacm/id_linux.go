//go:build linux && cgo

package rdmacm

/*
#include <stdlib.h>
#include <string.h>
#include "shim.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"syscall"
	"unsafe"
)

// ID is an rdma_cm_id created by rdma_create_ep (or by an incoming connect
// request), with its QP if it has one, attached to an EventChannel.
type ID struct {
	mu        sync.Mutex
	cid       *C.struct_rdma_cm_id
	key       uintptr
	channel   *EventChannel
	listener  *ID // the listener an accepted connection came from
	portSpace PortSpace
	qpType    QPType
	passive   bool
	hasQP     bool
	// detachedQP is the QP StartConnect took off the id until its
	// CONNECT_RESPONSE (connect_linux.go).
	detachedQP *C.struct_ibv_qp

	// A listener's configuration for the QPs of incoming requests, as
	// rdma_create_ep saves it for rdma_get_request.
	requestPD *PD
	requestQP *QPInit
	// A listener's shared receive queue for its requests' QPs (UseSRQ):
	// its attributes, and the SRQ once made.
	srqInit    *SRQInit
	requestSRQ *SRQ
	// The SRQ an accepted id's QP receives from, and that QP's number.
	srq      *SRQ
	srqQPNum uint32

	// The QP's share of a pooled CQ, released when the QP is destroyed.
	cq      *sharedCQ
	cqPool  *cqPool
	cqShare int

	events *queue[Event]
	// handler, set by OnEvents, takes the events instead of the queue;
	// deliverMu orders it against the event loop's deliveries.
	deliverMu sync.Mutex
	handler   func(Event)
	sends     *queue[Completion]
	recvs     *queue[Completion]
	buffers   buffers
	ud        udState // a UD id's addressing (ud_linux.go)
}

// CreateEP creates an id from ai with rdma_create_ep, with a QP when qp is
// not nil (on pd, or on the device's default PD when pd is nil), and
// migrates it to ch with rdma_migrate_id. For a passive ai (RAI_PASSIVE)
// the id is bound and ready to Listen; requests it receives get QPs from the
// same PD and attributes. For an active ai the address and route are
// resolved and the id is ready to Connect.
//
// The QP is created right after rdma_create_ep, on a completion queue the
// channel shares among its QPs, rather than by rdma_create_ep with two CQs
// and two completion channels of its own: the same QP, at a fraction of the
// cost and descriptors.
func CreateEP(ai *AddrInfo, pd *PD, qp *QPInit, ch *EventChannel) (*ID, error) {
	if ch == nil {
		return nil, errors.New("rdma_create_ep: an EventChannel is required: rdmaform runs every id asynchronously")
	}
	if qp != nil {
		if err := qp.Validate(limitsFor(pd)); err != nil {
			return nil, fmt.Errorf("rdma_create_ep: %w", err)
		}
	}
	id := newID(ch, ai.PortSpace, ai.QPType)
	id.passive = ai.Passive
	err := ai.use(func(cai *C.struct_rdma_addrinfo) error {
		if ret, errno := C.rdma_create_ep(&id.cid, cai, nil, nil); ret != 0 {
			return opError("rdma_create_ep", errno)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := id.join(ch); err != nil {
		id.destroy()
		return nil, err
	}
	if qp != nil && ai.Passive {
		q := *qp
		id.requestPD, id.requestQP = pd, &q
		if err := id.createDatagramListenerQP(ai, pd, qp); err != nil {
			id.Close()
			return nil, err
		}
	} else if qp != nil {
		if err := id.createQP(pd, *qp); err != nil {
			id.Close()
			return nil, err
		}
	}
	if ret, errno := C.rdma_migrate_id(id.cid, ch.ch); ret != 0 {
		id.Close()
		return nil, opError("rdma_migrate_id", errno)
	}
	return id, nil
}

func newID(ch *EventChannel, ps PortSpace, t QPType) *ID {
	return &ID{
		channel: ch, portSpace: ps, qpType: t,
		events: newQueue[Event](), sends: newQueue[Completion](), recvs: newQueue[Completion](),
	}
}

// createQP creates the id's QP on pd (nil: the device's default PD) with a
// share of one of the channel's pooled CQs.
func (id *ID) createQP(pd *PD, q QPInit) error {
	id.mu.Lock()
	defer id.mu.Unlock()
	if id.cid == nil {
		return &OpError{Op: "rdma_create_qp", Err: ErrClosed}
	}
	verbs := id.cid.verbs
	if verbs == nil {
		return opError("rdma_create_qp", syscall.ENODEV)
	}
	life, err := lifeOf(verbs)
	if err != nil {
		return err
	}
	cpd, err := pd.live()
	if err != nil {
		return err
	}
	if cpd != nil && C.rf_pd_matches(cpd, id.cid) == 0 {
		return fmt.Errorf("rdma_create_qp: protection domain on %s, but the address is served by %s",
			pd.Device(), C.GoString(C.ibv_get_device_name(verbs.device)))
	}
	pool, err := id.channel.cqPool(life)
	if err != nil {
		return err
	}
	cq, share, err := id.createPooledQP(pool, cpd, q, verbs)
	if err != nil {
		return err
	}
	id.cq, id.cqPool, id.cqShare, id.hasQP = cq, pool, share, true
	return nil
}

// qpResult carries a C call's return value and errno through withCSlot.
type qpResult struct {
	ret   C.int
	errno error
}

func (r qpResult) split() (C.int, error) { return r.ret, r.errno }

// join registers an existing rdma_cm_id and attaches it to the channel.
func (id *ID) join(ch *EventChannel) error {
	if err := id.enroll(ch); err != nil {
		return err
	}
	C.rf_set_context(id.cid, C.uintptr_t(id.key))
	return nil
}

// enroll gives the id its registry key and attaches it to the channel.
func (id *ID) enroll(ch *EventChannel) error {
	id.key = ids.add(id)
	if err := ch.attach(id); err != nil {
		ids.remove(id.key)
		return err
	}
	return nil
}

// dispatch delivers one event copied out of librdmacm. It runs on the
// channel's loop goroutine.
func (c *EventChannel) dispatch(ev *C.struct_rf_event) {
	e := Event{
		Type:   EventType(ev._type),
		Status: int(ev.status),
		Param: ConnParam{
			ResponderResources: uint8(ev.responder_resources),
			InitiatorDepth:     uint8(ev.initiator_depth),
			RetryCount:         uint8(ev.retry_count),
			RNRRetryCount:      uint8(ev.rnr_retry_count),
		},
		QPNum: uint32(ev.qp_num),
		QKey:  uint32(ev.qkey),
	}
	if n := int(ev.private_data_len); n > 0 {
		e.PrivateData = C.GoBytes(unsafe.Pointer(&ev.private_data[0]), C.int(n))
		e.Param.PrivateData = e.PrivateData
	}
	if e.Type != ConnectRequest {
		if e.Type == DeviceRemoval {
			deviceRemoved(ev.verbs) // before the id's release, so nothing new is made on it
		}
		if id := ids.get(uintptr(ev.id_key)); id != nil {
			e.ID = id
			id.datagramEstablished(&e, ev)
			id.deliver(e)
			if e.Type == DeviceRemoval {
				id.releaseForRemoval()
			}
		}
		return
	}
	listener := ids.get(uintptr(ev.listen_key))
	if listener == nil {
		// The listener is being closed: refuse the request rather than leak it.
		C.rdma_reject(ev.id, nil, 0)
		C.rdma_destroy_ep(ev.id)
		return
	}
	child := listener.adopt(ev.id)
	if child == nil {
		return
	}
	e.ID, e.Listener = child, listener
	if !listener.events.put(e) {
		// The listener closed since it was looked up: its Close rejected
		// what was queued, and this one goes the same way.
		child.rejectQueued()
	}
}

// adopt wraps the new id of an incoming request. Its QP is created by
// whoever takes the request (NextEvent), not here, so the event loop stays
// free for other ids' events while QPs are built.
func (l *ID) adopt(cid *C.struct_rdma_cm_id) *ID {
	child := newID(l.channel, l.portSpace, l.qpType)
	child.cid, child.listener = cid, l
	if err := child.join(l.channel); err != nil {
		C.rdma_reject(cid, nil, 0)
		C.rdma_destroy_ep(cid)
		return nil
	}
	return child
}

// createRequestQP gives a request's id a QP from the listener's PD and
// attributes, as rdma_get_request does, if the listener has them.
func (l *ID) createRequestQP(child *ID) error {
	l.mu.Lock()
	pd, q, withSRQ := l.requestPD, l.requestQP, l.srqInit != nil
	l.mu.Unlock()
	if q == nil || l.datagramQP() {
		return nil
	}
	if withSRQ {
		s, err := l.srqFor(child)
		if err != nil {
			return err
		}
		return child.createQPOnSRQ(pd, *q, s)
	}
	return child.createQP(pd, *q)
}

// Listen starts listening (rdma_listen) with the given backlog of pending
// requests; a backlog of 0 lets the kernel choose.
func (id *ID) Listen(backlog int) error {
	if backlog < 0 {
		return fmt.Errorf("rdma_listen: backlog %d is negative", backlog)
	}
	return id.call("rdma_listen", func(cid *C.struct_rdma_cm_id) (C.int, error) {
		ret, errno := C.rdma_listen(cid, C.int(backlog))
		return ret, errno
	})
}

// OnEvents has the channel's event loop call h with each of the id's
// events, in order, instead of queueing them for NextEvent: no goroutine
// need wait for them, which matters for the many connections a listener
// accepts. h runs on the event loop, so it must return quickly: no waits,
// no slow calls and no Close (hand those to a goroutine). Events that
// arrived before OnEvents are handed to h at once, in OnEvents' caller. If
// the event loop fails, h receives an event whose Err says why. Not for
// listeners: their requests need NextEvent.
func (id *ID) OnEvents(h func(Event)) {
	id.deliverMu.Lock()
	defer id.deliverMu.Unlock()
	id.handler = h
	for {
		e, ok := id.events.tryNext()
		if !ok {
			return
		}
		h(e)
	}
}

// deliver hands an event to the id's handler, or queues it for NextEvent.
func (id *ID) deliver(e Event) {
	id.deliverMu.Lock()
	defer id.deliverMu.Unlock()
	if id.handler != nil {
		id.handler(e)
		return
	}
	id.events.put(e)
}

// NextEvent waits for the next event of this id, in order. On a listener,
// a CONNECT_REQUEST's new id gets its QP here (Event.Err says if that failed).
func (id *ID) NextEvent(ctx context.Context) (Event, error) {
	e, err := id.events.next(ctx)
	if err != nil {
		return e, err
	}
	switch e.Type {
	case channelFailed:
		return e, e.Err
	case ConnectRequest:
		e.Err = id.createRequestQP(e.ID)
	case ConnectResponse:
		e = id.completeConnect(e)
	}
	return e, nil
}

// GetRequest waits for the next connect request on a listener and returns
// its new id (with its QP when the listener has a QP configuration), the
// request's event and, if the QP could not be created, that error. Other
// events on the listener (DEVICE_REMOVAL, ADDR_CHANGE) end the wait with an
// *EventError.
func (id *ID) GetRequest(ctx context.Context) (*ID, Event, error) {
	e, err := id.NextEvent(ctx)
	if err != nil {
		return nil, e, err
	}
	if e.Type != ConnectRequest {
		return nil, e, &EventError{Op: "rdma_get_request", Event: e}
	}
	return e.ID, e, e.Err
}

// StartAccept accepts a connect request (rdma_accept) without waiting for
// ESTABLISHED. If the accept fails, the request is rejected, so the peer
// learns it at once instead of waiting for the CM's timeout.
func (id *ID) StartAccept(p ConnParam) error {
	if err := p.validate(id.portSpace, id.qpType, Accept); err != nil {
		return fmt.Errorf("rdma_accept: %w", err)
	}
	qpn := id.acceptQPNum()
	return id.slowCall("rdma_accept", func(cid *C.struct_rdma_cm_id) (C.int, error) {
		cp := p.c()
		cp.qp_num = C.uint32_t(qpn) // a UD listener's own QP, for a request without one
		defer C.free(cp.private_data)
		ret, errno := C.rdma_accept(cid, &cp)
		if ret != 0 {
			C.rdma_reject(cid, nil, 0)
		}
		return ret, errno
	})
}

// Accept accepts a connect request and, for connected QP types, waits for
// ESTABLISHED. A UD request is answered at once; there is nothing to wait for.
func (id *ID) Accept(ctx context.Context, p ConnParam) error {
	if err := id.StartAccept(p); err != nil {
		return err
	}
	if id.Connectionless() {
		return nil
	}
	_, err := id.waitEstablished(ctx, "rdma_accept")
	return err
}

// Reject refuses a connect request (rdma_reject) with optional private data
// for the peer. The id should then be closed.
func (id *ID) Reject(privateData []byte) error {
	if max := MaxPrivateData(id.portSpace, id.qpType, Reject); len(privateData) > max {
		return fmt.Errorf("rdma_reject: private data of %d bytes exceeds the %d bytes a reject carries in port space %s",
			len(privateData), max, id.portSpace)
	}
	return id.call("rdma_reject", func(cid *C.struct_rdma_cm_id) (C.int, error) {
		pd, n := cBytes(privateData)
		defer C.free(pd)
		ret, errno := C.rdma_reject(cid, pd, n)
		return ret, errno
	})
}

// StartConnect sends the connect request (rdma_connect) without waiting.
func (id *ID) StartConnect(p ConnParam) error {
	if id.passive {
		return errors.New("rdma_connect: this id listens; connect from an active id")
	}
	if err := p.validate(id.portSpace, id.qpType, Connect); err != nil {
		return fmt.Errorf("rdma_connect: %w", err)
	}
	return id.slowCall("rdma_connect", func(cid *C.struct_rdma_cm_id) (C.int, error) {
		cp := p.c()
		defer C.free(cp.private_data)
		if id.detaches() {
			return id.connectDetached(cid, &cp)
		}
		ret, errno := C.rdma_connect(cid, &cp)
		return ret, errno
	})
}

// Connect connects and waits for ESTABLISHED. A rejection, an unreachable
// peer or a connection error returns an *EventError carrying the event
// (errors.Is(err, syscall.ECONNREFUSED) for a rejection). The returned event
// carries the peer's private data.
func (id *ID) Connect(ctx context.Context, p ConnParam) (Event, error) {
	if err := id.StartConnect(p); err != nil {
		return Event{}, err
	}
	return id.waitEstablished(ctx, "rdma_connect")
}

func (id *ID) waitEstablished(ctx context.Context, op string) (Event, error) {
	return waitEstablishedOn(ctx, id.NextEvent, op)
}

// Disconnect starts a disconnect (rdma_disconnect); both sides then receive
// DISCONNECTED.
func (id *ID) Disconnect() error {
	return id.call("rdma_disconnect", func(cid *C.struct_rdma_cm_id) (C.int, error) {
		ret, errno := C.rdma_disconnect(cid)
		return ret, errno
	})
}

// WaitEvent waits for an event of the given type, returning an
// *EventError if another event arrives first.
func (id *ID) WaitEvent(ctx context.Context, t EventType) (Event, error) {
	e, err := id.NextEvent(ctx)
	if err != nil {
		return e, err
	}
	if e.Type != t {
		return e, &EventError{Op: "waiting for " + t.String(), Event: e}
	}
	return e, nil
}

// PortSpace is the id's port space.
func (id *ID) PortSpace() PortSpace { return id.portSpace }

// QPType is the id's QP type.
func (id *ID) QPType() QPType { return id.qpType }

// Connectionless reports whether the id's exchange is UD's (a UD QP, or
// the UDP or IPoIB port space): a request is answered once, with no
// ESTABLISHED to wait for, and rdma_disconnect, though it succeeds, has no
// connection to end, so no DISCONNECTED follows it.
func (id *ID) Connectionless() bool {
	return id.qpType == UD || id.portSpace == PSUDP || id.portSpace == PSIPoIB
}

// Listener is the listener an accepted id came from, or nil.
func (id *ID) Listener() *ID { return id.listener }

// call runs one short librdmacm call on the live id under its lock, so Close
// cannot free the id underneath it.
func (id *ID) call(op string, f func(*C.struct_rdma_cm_id) (C.int, error)) error {
	id.mu.Lock()
	defer id.mu.Unlock()
	if id.cid == nil {
		return &OpError{Op: op, Err: ErrClosed}
	}
	defer id.showQP()()
	if ret, errno := f(id.cid); ret != 0 {
		return opError(op, errno)
	}
	return nil
}

// slowCall is call for the calls that do real work in the kernel, holding
// one of the bounded C slots.
func (id *ID) slowCall(op string, f func(*C.struct_rdma_cm_id) (C.int, error)) error {
	return withCSlot(func() error { return id.call(op, f) })
}

// Close destroys the id: its QP first, then its buffers (deregistered and
// freed), then the id itself (rdma_destroy_ep), which the peer sees as a
// disconnect. On a listener, every connect request queued and not yet taken
// is rejected first, so its peer learns at once rather than at the CM's
// timeout. Close is idempotent and safe from any goroutine: posts and
// buffer copies running meanwhile finish before it frees anything, and
// later ones return ErrClosed.
func (id *ID) Close() error {
	id.mu.Lock()
	defer id.mu.Unlock()
	if id.cid == nil {
		// Closed already, or released by its device's removal, which
		// kept the buffers' memory for readers that may still hold it.
		id.closeBuffers()
		return nil
	}
	id.destroy()
	return nil
}

// destroy releases everything; the caller holds id.mu or owns id alone.
func (id *ID) destroy() {
	if id.key != 0 {
		// First, so the event loop sends new requests for a closing
		// listener to be rejected instead of queueing them.
		ids.remove(id.key)
	}
	for _, e := range id.events.close() {
		if e.Type == ConnectRequest && e.ID != nil {
			e.ID.rejectQueued()
		}
	}
	if id.cid != nil {
		// The QP before the buffers: once it is destroyed no work request
		// refers to them, and the posts that could are excluded by id.mu.
		if id.channel != nil {
			id.reattachQP()
			id.channel.destroyQP(id.cid)
		} else {
			C.rf_destroy_qp(id.cid)
		}
		// The SRQ after the QPs on it, before the id lets its device go.
		id.leaveSRQ()
		id.closeSRQ()
		id.releaseUD()
		id.closeBuffers()
		C.rdma_destroy_ep(id.cid)
	}
	id.cid = nil
	if id.cq != nil {
		id.cqPool.release(id.cq, id.cqShare)
		id.cq = nil
	}
	if id.channel != nil {
		id.channel.detach(id)
	}
	id.sends.close()
	id.recvs.close()
}

// rejectQueued refuses a connect request nobody will take (its listener is
// closing) and destroys its id.
func (id *ID) rejectQueued() {
	id.Reject(nil)
	id.Close()
}

// c is p as rdma_conn_param; its private data is C memory the caller frees.
// (rdma_accept ignores retry_count.)
func (p ConnParam) c() C.struct_rdma_conn_param {
	pd, n := cBytes(p.PrivateData)
	return C.struct_rdma_conn_param{
		private_data:        pd,
		private_data_len:    n,
		responder_resources: C.uint8_t(p.ResponderResources),
		initiator_depth:     C.uint8_t(p.InitiatorDepth),
		retry_count:         C.uint8_t(p.RetryCount),
		rnr_retry_count:     C.uint8_t(p.RNRRetryCount),
	}
}

// cBytes copies b into C memory (nil for empty); the caller frees it.
func cBytes(b []byte) (unsafe.Pointer, C.uint8_t) {
	if len(b) == 0 {
		return nil, 0
	}
	return C.CBytes(b), C.uint8_t(len(b))
}

func boolInt(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

func errnoFromRet(ret int) error {
	if ret < 0 {
		ret = -ret
	}
	return syscall.Errno(ret)
}
