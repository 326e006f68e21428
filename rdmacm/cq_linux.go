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
// cost a handful of CQs, not two CQs and two descriptors each.
type cqPool struct {
	verbs  *C.struct_ibv_context
	comp   *C.struct_ibv_comp_channel
	poll   *os.File
	maxCQE int

	mu     sync.Mutex
	cqs    []*sharedCQ
	closed bool
	done   chan struct{}
}

// sharedCQ is one CQ of a pool. used counts the entries the QPs on it may
// need at once (their send plus receive queue depths), so it cannot overflow.
type sharedCQ struct {
	cq   *C.struct_ibv_cq
	size int
	used int
}

func newCQPool(verbs *C.struct_ibv_context) (*cqPool, error) {
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
		verbs: verbs, comp: comp, maxCQE: int(maxCQE),
		poll: os.NewFile(uintptr(dup), "completion channel"),
		done: make(chan struct{}),
	}
	go p.loop()
	return p, nil
}

// reserve finds (or creates) a CQ with room for n more entries.
func (p *cqPool) reserve(n int) (*sharedCQ, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, ErrClosed
	}
	if n > p.maxCQE {
		return nil, &OpError{Op: "ibv_create_cq", Err: fmt.Errorf("the QP needs %d completion entries, more than the device's max_cqe of %d: %w", n, p.maxCQE, syscall.EINVAL)}
	}
	for _, cq := range p.cqs {
		if cq.size-cq.used >= n {
			cq.used += n
			return cq, nil
		}
	}
	size := min(max(sharedCQSize, n), p.maxCQE)
	cq, errno := C.ibv_create_cq(p.verbs, C.int(size), nil, p.comp, 0)
	if cq == nil {
		return nil, opError("ibv_create_cq", errno)
	}
	if ret, errno := C.rf_arm(cq); ret != 0 {
		C.ibv_destroy_cq(cq)
		return nil, opError("ibv_req_notify_cq", errno)
	}
	s := &sharedCQ{cq: cq, size: size, used: n}
	p.cqs = append(p.cqs, s)
	return s, nil
}

func (p *cqPool) release(cq *sharedCQ, n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	cq.used -= n
}

// loop waits for completion events and routes every completion to the id
// that posted the work request.
func (p *cqPool) loop() {
	defer close(p.done)
	raw, err := p.poll.SyscallConn()
	if err != nil {
		return
	}
	raw.Read(func(uintptr) bool {
		for {
			ret, errno := C.rf_take_cq_event(p.comp)
			if ret != 0 {
				if errno != syscall.EAGAIN {
					return true
				}
				break
			}
		}
		p.drain()
		return false
	})
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
			n, _ := C.rf_poll(cq.cq, &wcs[0], C.int(len(wcs)))
			for i := 0; i < int(n); i++ {
				route(&wcs[i])
			}
			if n > 0 {
				continue
			}
			if armed {
				break
			}
			C.rf_arm(cq.cq)
			armed = true
		}
	}
}

func route(wc *C.struct_rf_completion) {
	v := uint64(wc.wr_id)
	id := ids.get(uintptr(v >> wrKeyShift))
	if id == nil {
		return
	}
	c := Completion{
		WRID: v & maxUserWRID, Status: int(wc.status), Opcode: int(wc.opcode),
		Bytes: int(wc.byte_len), Text: C.GoString(C.ibv_wc_status_str(uint32(wc.status))),
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
