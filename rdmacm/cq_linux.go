//go:build linux && cgo

package rdmacm

/*
#include "shim.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// Work request ids carry the posting id's registry key and the direction, so
// the completion poller can route each completion, including flushed ones
// (whose opcode is undefined), and drop those of ids already closed.
const (
	wrKeyShift   = 32
	wrRecvBit    = 1 << 31
	maxUserWRID  = wrRecvBit - 1
	sharedCQSize = 16384
)

func encodeWRID(key uintptr, recv bool, user uint64) C.uint64_t {
	v := uint64(key)<<wrKeyShift | user
	if recv {
		v |= wrRecvBit
	}
	return C.uint64_t(v)
}

// cqPool shares completion queues among the QPs of one event channel on one
// device. One completion channel, one descriptor, serves them all, and one
// goroutine waits on it through Go's network poller: a thousand endpoints
// cost a handful of CQs, not two CQs and two descriptors each. A pool
// belongs to one life of its device (deviceLife), and goes with it.
type cqPool struct {
	life   *deviceLife
	ch     *EventChannel
	comp   *C.struct_ibv_comp_channel
	poll   *os.File
	maxCQE int

	mu     sync.Mutex
	cqs    []*sharedCQ
	qps    int
	closed bool
	done   chan struct{}
	// removed: the device is gone; idle is closed once no QP remains.
	removed bool
	idle    chan struct{}
	// failed is why the poller stopped by itself: the pool takes no new
	// QPs, and the channel makes another for them.
	failed error
}

// sharedCQ is one CQ of a pool. used counts the entries the QPs on it may
// need at once (their send plus receive queue depths as the provider gave
// them), so it cannot overflow. A CQ that failed takes no new QPs.
type sharedCQ struct {
	cq     *C.struct_ibv_cq
	size   int
	used   int
	broken bool
}

func newCQPool(life *deviceLife, ch *EventChannel) (*cqPool, error) {
	verbs := life.verbs
	maxCQE, errno := C.rf_max_cqe(verbs)
	if maxCQE < 0 {
		return nil, opError("ibv_query_device", errno)
	}
	comp, errno := C.ibv_create_comp_channel(verbs)
	if comp == nil {
		return nil, opError("ibv_create_comp_channel", errno)
	}
	if ret, errno := C.rf_set_nonblock(comp.fd); ret != 0 {
		C.ibv_destroy_comp_channel(comp)
		return nil, opError("fcntl(O_NONBLOCK)", errno)
	}
	dup, err := unix.FcntlInt(uintptr(comp.fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		C.ibv_destroy_comp_channel(comp)
		return nil, opError("dup", err)
	}
	p := &cqPool{
		life: life, ch: ch, comp: comp, maxCQE: int(maxCQE),
		poll: os.NewFile(uintptr(dup), "completion channel"),
		done: make(chan struct{}), idle: make(chan struct{}),
	}
	go p.loop()
	return p, nil
}

// usable reports whether the pool takes new QPs.
func (p *cqPool) usable() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.closed && !p.removed && p.failed == nil
}

// reserve finds (or creates) a CQ with room for n more entries, for one QP.
func (p *cqPool) reserve(n int) (*sharedCQ, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, ErrClosed
	}
	if p.removed {
		return nil, &OpError{Op: "ibv_create_cq", Err: errNoDevice, Detail: "the device " + p.life.name + " is being removed"}
	}
	if n > p.maxCQE {
		return nil, &OpError{Op: "ibv_create_cq", Err: fmt.Errorf("the QP needs %d completion entries, more than the device's max_cqe of %d: %w", n, p.maxCQE, syscall.EINVAL)}
	}
	for _, cq := range p.cqs {
		if !cq.broken && cq.size-cq.used >= n {
			cq.used += n
			p.qps++
			return cq, nil
		}
	}
	size := min(max(sharedCQSize, n), p.maxCQE)
	cq, errno := C.ibv_create_cq(p.life.verbs, C.int(size), nil, p.comp, 0)
	if cq == nil {
		return nil, opError("ibv_create_cq", memlockHint(errno))
	}
	if ret, errno := C.rf_arm(cq); ret != 0 {
		C.ibv_destroy_cq(cq)
		return nil, opError("ibv_req_notify_cq", errno)
	}
	s := &sharedCQ{cq: cq, size: size, used: n}
	p.cqs = append(p.cqs, s)
	p.qps++
	return s, nil
}

// grow takes n more entries on cq for a QP already counted, if it has room.
func (p *cqPool) grow(cq *sharedCQ, n int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if cq.size-cq.used < n {
		return false
	}
	cq.used += n
	return true
}

// release returns a QP's n entries on cq.
func (p *cqPool) release(cq *sharedCQ, n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	cq.used -= n
	p.qps--
	p.checkIdle()
}

// markRemoved refuses new QPs: the device is gone.
func (p *cqPool) markRemoved() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.removed = true
	p.checkIdle()
}

func (p *cqPool) checkIdle() {
	if !p.removed || p.qps > 0 {
		return
	}
	select {
	case <-p.idle:
	default:
		close(p.idle)
	}
}

// loop waits for completion events and routes every completion to the id
// that posted the work request. If the completion channel fails, every id
// of the pool hears why (their completions no longer arrive) and the pool
// takes no new QPs.
func (p *cqPool) loop() {
	defer close(p.done)
	raw, err := p.poll.SyscallConn()
	if err != nil {
		p.fail(opError("ibv_get_cq_event", err), nil)
		return
	}
	var failure error
	err = raw.Read(func(uintptr) bool {
		for {
			ret, errno := C.rf_take_cq_event(p.comp)
			if ret == 0 {
				if err := injectedFault("ibv_get_cq_event"); err != nil {
					ret, errno = -1, err
				}
			}
			if ret != 0 {
				if errno != syscall.EAGAIN {
					failure = opError("ibv_get_cq_event", errno)
					return true
				}
				break
			}
		}
		p.drain()
		return false
	})
	if failure == nil && err != nil && !errors.Is(err, os.ErrClosed) {
		failure = opError("ibv_get_cq_event", err)
	}
	if failure != nil {
		p.fail(failure, nil)
	}
}

// cqFault, set only by tests, makes the poller's calls fail with the
// error it returns for them (nil: no fault), as a failing device would.
var cqFault atomic.Pointer[func(op string) error]

func injectedFault(op string) error {
	if f := cqFault.Load(); f != nil {
		return (*f)(op)
	}
	return nil
}

// fail records why completions can no longer be read, on the whole pool
// (cq nil) or on one CQ, and tells the ids concerned.
func (p *cqPool) fail(err error, cq *sharedCQ) {
	p.mu.Lock()
	if cq == nil {
		p.failed = err
	} else {
		cq.broken = true
	}
	p.mu.Unlock()
	err = fmt.Errorf("%w: the QP's completions can no longer be read; new QPs get another completion queue", err)
	for _, id := range ids.all() {
		id.mu.Lock()
		on := id.cqPool == p && (cq == nil || id.cq == cq)
		id.mu.Unlock()
		if on {
			id.deliver(Event{Type: CompletionFailed, ID: id, Err: err})
		}
	}
}

// drain polls every CQ empty, re-arms it and polls once more, so a
// completion that lands between the last poll and the arm is not missed.
func (p *cqPool) drain() {
	p.mu.Lock()
	cqs := append([]*sharedCQ(nil), p.cqs...)
	p.mu.Unlock()
	var wcs [16]C.struct_rf_completion
	for _, cq := range cqs {
		for armed := false; ; {
			n, errno := C.rf_poll(cq.cq, &wcs[0], C.int(len(wcs)))
			if n >= 0 {
				if err := injectedFault("ibv_poll_cq"); err != nil {
					n, errno = -1, err
				}
			}
			if n < 0 {
				p.mu.Lock()
				broken := cq.broken
				p.mu.Unlock()
				if !broken {
					p.fail(opError("ibv_poll_cq", errno), cq)
				}
				break
			}
			for i := 0; i < int(n); i++ {
				route(&wcs[i])
			}
			if n > 0 {
				continue
			}
			if armed {
				break
			}
			if ret, errno := C.rf_arm(cq.cq); ret != 0 {
				p.fail(opError("ibv_req_notify_cq", errno), cq)
				break
			}
			armed = true
		}
	}
}

func route(wc *C.struct_rf_completion) {
	v := uint64(wc.wr_id)
	if key := uintptr(v >> wrKeyShift); key&srqKeyBit != 0 {
		routeSRQ(key, wc)
		return
	}
	id := ids.get(uintptr(v >> wrKeyShift))
	if id == nil {
		return
	}
	c := Completion{
		WRID: v & maxUserWRID, Status: int(wc.status), Opcode: int(wc.opcode),
		Bytes: int(wc.byte_len), Text: C.GoString(C.ibv_wc_status_str(uint32(wc.status))),
		SrcQP: uint32(wc.src_qp),
		src:   udSource{wcFlags: uint32(wc.wc_flags), slid: uint16(wc.slid), sl: uint8(wc.sl), pathBits: uint8(wc.dlid_path_bits)},
	}
	if v&wrRecvBit != 0 {
		id.recvs.put(c)
	} else {
		id.sends.put(c)
	}
}

// close stops the poller and destroys the CQs and the channel; every QP on
// them must be destroyed already.
func (p *cqPool) close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	p.mu.Unlock()
	p.poll.Close()
	<-p.done
	// A CQ cannot be destroyed while one of its completion events is
	// unacknowledged: take those that came after the poller stopped.
	for {
		if ret, _ := C.rf_take_cq_event(p.comp); ret != 0 {
			break
		}
	}
	var errs []error
	for _, cq := range p.cqs {
		if ret := C.ibv_destroy_cq(cq.cq); ret != 0 {
			errs = append(errs, opError("ibv_destroy_cq", errnoFromRet(int(ret))))
		}
	}
	p.cqs = nil
	if ret := C.ibv_destroy_comp_channel(p.comp); ret != 0 {
		errs = append(errs, opError("ibv_destroy_comp_channel", errnoFromRet(int(ret))))
	}
	return errors.Join(errs...)
}
