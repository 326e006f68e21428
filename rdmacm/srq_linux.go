//go:build linux && cgo

package rdmacm

/*
#include <stdlib.h>
#include <errno.h>
#include "shim.h"

// rf_create_srq makes an SRQ on pd; *max_wr and *max_sge become what the
// device gave (it may round them up).
static struct ibv_srq *rf_create_srq(struct ibv_pd *pd, uint32_t *max_wr, uint32_t *max_sge)
{
	struct ibv_srq_init_attr attr = {0};
	struct ibv_srq *srq;

	attr.attr.max_wr = *max_wr;
	attr.attr.max_sge = *max_sge;
	srq = ibv_create_srq(pd, &attr);
	if (srq) {
		*max_wr = attr.attr.max_wr;
		*max_sge = attr.attr.max_sge;
	}
	return srq;
}

static int rf_post_srq_recv(struct ibv_srq *srq, uint64_t wr_id, void *addr, uint32_t len, struct ibv_mr *mr)
{
	struct ibv_sge sge = { .addr = (uintptr_t)addr, .length = len, .lkey = mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 }, *bad;
	int ret = ibv_post_srq_recv(srq, &wr, &bad);

	if (ret) {
		errno = ret;
		return -1;
	}
	return 0;
}

static int rf_destroy_srq(struct ibv_srq *srq)
{
	int ret = ibv_destroy_srq(srq);

	if (ret) {
		errno = ret;
		return -1;
	}
	return 0;
}

static struct ibv_mr *rf_reg_local(struct ibv_pd *pd, void *addr, size_t len)
{
	return ibv_reg_mr(pd, addr, len, IBV_ACCESS_LOCAL_WRITE);
}

static struct ibv_pd *rf_id_pd(struct rdma_cm_id *id) { return id->pd; }
static uint32_t rf_id_qp_num(struct rdma_cm_id *id) { return id->qp ? id->qp->qp_num : 0; }
*/
import "C"

import (
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// SRQ is a shared receive queue (ibv_create_srq) that a listener's
// accepted connections receive from instead of receive queues of their
// own. It holds one registered region of MaxWR slots, each posted as a
// receive; a receive's completion comes to the connection whose QP took
// it (by the completion's qp_num), with the slot as its WRID, and the
// slot is posted again once the connection has used it (Repost).
//
// Its receive completions land on one share of a pooled CQ as large as
// the SRQ, which they can never overflow: no more receives complete than
// are posted. It goes with its last QP: Close before then only marks it,
// so a QP is never left on a destroyed SRQ, and the id whose QP goes last
// still holds the device (and its PD) when the SRQ is destroyed.
type SRQ struct {
	mu       sync.Mutex
	srq      *C.struct_ibv_srq
	verbs    *C.struct_ibv_context
	mem      unsafe.Pointer
	mr       *C.struct_ibv_mr
	slotSize int
	slots    int
	maxWR    int // as the device gave them
	maxSGE   int
	device   string
	key      uintptr
	cq       *sharedCQ
	pool     *cqPool
	qps      map[uint32]*ID
	closing  bool
	posted   atomic.Int64
}

// srqKeyBit marks an SRQ's registry key in a work request id, apart from
// the ids' keys (which never reach it).
const srqKeyBit = 1 << 31

var srqs = struct {
	sync.Mutex
	next uintptr
	m    map[uintptr]*SRQ
}{m: map[uintptr]*SRQ{}}

// UseSRQ has the QPs of the requests the listener takes from now on
// receive from one shared receive queue, made at once when the listener
// is bound to a device, or at its first request when it listens on every
// address (the request's device then; a request on another device is
// refused, as one SRQ serves one device).
func (l *ID) UseSRQ(q SRQInit) error {
	if q.MaxWR == 0 || q.MaxSGE == 0 || q.SlotSize <= 0 {
		return fmt.Errorf("ibv_create_srq: max_wr %d, max_sge %d and a slot of %d bytes must all be positive", q.MaxWR, q.MaxSGE, q.SlotSize)
	}
	l.mu.Lock()
	l.srqInit = &q
	bound := l.cid != nil && l.cid.verbs != nil
	l.mu.Unlock()
	if !bound {
		return nil
	}
	_, err := l.srqFor(l)
	return err
}

// SRQ is the id's shared receive queue: a listener's (nil until made),
// or the one an accepted id's QP receives from.
func (id *ID) SRQ() *SRQ {
	id.mu.Lock()
	defer id.mu.Unlock()
	if id.srq != nil {
		return id.srq
	}
	return id.requestSRQ
}

// srqFor is the listener's SRQ for an id on the listener's device, made on
// first use on the PD the listener's QPs are made on.
func (l *ID) srqFor(on *ID) (*SRQ, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var verbs *C.struct_ibv_context
	var idPD *C.struct_ibv_pd
	if on == l {
		if l.cid == nil {
			return nil, &OpError{Op: "ibv_create_srq", Err: ErrClosed}
		}
		verbs, idPD = l.cid.verbs, C.rf_id_pd(l.cid)
	} else {
		on.mu.Lock()
		if on.cid != nil {
			verbs, idPD = on.cid.verbs, C.rf_id_pd(on.cid)
		}
		on.mu.Unlock()
	}
	if verbs == nil {
		return nil, opError("ibv_create_srq", syscall.ENODEV)
	}
	if s := l.requestSRQ; s != nil {
		if s.verbs != verbs {
			return nil, &OpError{Op: "ibv_create_srq", Err: syscall.EXDEV,
				Detail: fmt.Sprintf("the listener's SRQ is on %s and a request came on %s: one SRQ serves one device, so listen on an address of one device", s.device, C.GoString(C.ibv_get_device_name(verbs.device)))}
		}
		return s, nil
	}
	pd := idPD
	if l.requestPD != nil {
		p, err := l.requestPD.live()
		if err != nil {
			return nil, err
		}
		pd = p
	}
	if pd == nil {
		return nil, opError("ibv_create_srq", syscall.ENODEV)
	}
	life, err := lifeOf(verbs)
	if err != nil {
		return nil, err
	}
	pool, err := l.channel.cqPool(life)
	if err != nil {
		return nil, err
	}
	s, err := newSRQ(pd, verbs, pool, *l.srqInit)
	if err != nil {
		return nil, err
	}
	l.requestSRQ = s
	return s, nil
}

func newSRQ(pd *C.struct_ibv_pd, verbs *C.struct_ibv_context, pool *cqPool, q SRQInit) (*SRQ, error) {
	s := &SRQ{verbs: verbs, pool: pool, slots: int(q.MaxWR), slotSize: q.SlotSize, qps: map[uint32]*ID{},
		device: C.GoString(C.ibv_get_device_name(verbs.device))}
	cq, err := pool.reserve(s.slots)
	if err != nil {
		return nil, err
	}
	s.cq = cq
	maxWR, maxSGE := C.uint32_t(q.MaxWR), C.uint32_t(q.MaxSGE)
	srq, errno := C.rf_create_srq(pd, &maxWR, &maxSGE)
	if srq == nil {
		pool.release(cq, s.slots)
		return nil, &OpError{Op: "ibv_create_srq", Err: memlockHint(errnoOr(errno)),
			Detail: fmt.Sprintf("%s refused an SRQ of max_wr %d, max_sge %d: compare with its max_srq_wr and max_srq_sge (ibv_devinfo -v)", s.device, q.MaxWR, q.MaxSGE)}
	}
	s.srq, s.maxWR, s.maxSGE = srq, int(maxWR), int(maxSGE)
	size := C.size_t(s.slots * s.slotSize)
	if s.mem = C.calloc(1, size); s.mem == nil {
		s.destroy()
		return nil, opError("calloc", syscall.ENOMEM)
	}
	mr, errno := C.rf_reg_local(pd, s.mem, size)
	if mr == nil {
		s.destroy()
		return nil, opError("ibv_reg_mr", memlockHint(errnoOr(errno)))
	}
	s.mr = mr
	srqs.Lock()
	srqs.next++
	s.key = srqs.next | srqKeyBit
	srqs.m[s.key] = s
	srqs.Unlock()
	for slot := 0; slot < s.slots; slot++ {
		if err := s.Repost(slot); err != nil {
			s.mu.Lock()
			s.destroy()
			s.mu.Unlock()
			return nil, err
		}
	}
	return s, nil
}

func errnoOr(err error) error {
	if err == nil {
		return syscall.EIO
	}
	return err
}

// Repost posts a receive into slot again, once its message is used. On a
// closed SRQ it does nothing: there is nothing to receive into.
func (s *SRQ) Repost(slot int) error {
	if slot < 0 || slot >= s.slots {
		return fmt.Errorf("ibv_post_srq_recv: slot %d is outside the SRQ's %d", slot, s.slots)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srq == nil {
		return nil
	}
	addr := unsafe.Add(s.mem, slot*s.slotSize)
	if ret, errno := C.rf_post_srq_recv(s.srq, encodeWRID(s.key, true, uint64(slot)), addr, C.uint32_t(s.slotSize), s.mr); ret != 0 {
		return opError("ibv_post_srq_recv", errno)
	}
	s.posted.Add(1)
	return nil
}

// Stats are the SRQ's size and the receives posted on it now.
func (s *SRQ) Stats() SRQStats {
	return SRQStats{MaxWR: s.maxWR, MaxSGE: s.maxSGE, Posted: int(s.posted.Load()), Device: s.device}
}

// Close destroys the SRQ once no QP receives from it any more: now, if
// none does, or with the last one's destruction. It is idempotent.
func (s *SRQ) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closing = true
	if len(s.qps) > 0 {
		return nil
	}
	return s.destroy()
}

// destroy releases the SRQ, then its memory and its CQ share; the caller
// holds s.mu (or owns s alone) and no QP is left on it.
func (s *SRQ) destroy() error {
	var err error
	if s.srq != nil {
		if ret, errno := C.rf_destroy_srq(s.srq); ret != 0 {
			err = opError("ibv_destroy_srq", errno)
		}
		s.srq = nil
		s.posted.Store(0)
	}
	if s.key != 0 {
		srqs.Lock()
		delete(srqs.m, s.key)
		srqs.Unlock()
		s.key = 0
	}
	if s.mr != nil {
		C.ibv_dereg_mr(s.mr)
		s.mr = nil
	}
	if s.mem != nil {
		C.free(s.mem)
		s.mem = nil
	}
	if s.cq != nil {
		s.pool.release(s.cq, s.slots)
		s.cq = nil
	}
	return err
}

// attach records the QP of id as one the SRQ's completions go to.
func (s *SRQ) attach(id *ID, qpNum uint32) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing || s.srq == nil {
		return &OpError{Op: "rdma_create_qp", Err: ErrClosed, Detail: "the listener's SRQ is closing"}
	}
	s.qps[qpNum] = id
	return nil
}

// detach forgets id's QP, destroyed now, and posts again the slots of
// the completions it never took; the last QP of a closing SRQ takes it
// along.
func (s *SRQ) detach(id *ID, qpNum uint32) {
	for _, c := range id.recvs.close() {
		s.Repost(int(c.WRID))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.qps[qpNum] == id {
		delete(s.qps, qpNum)
	}
	if s.closing && len(s.qps) == 0 {
		s.destroy()
	}
}

// routeSRQ hands a receive completion of an SRQ to the id whose QP took
// it. A slot whose completion nobody takes (its id is gone, or it failed,
// leaving nothing to copy) is posted again at once.
func routeSRQ(key uintptr, wc *C.struct_rf_completion) {
	srqs.Lock()
	s := srqs.m[key]
	srqs.Unlock()
	if s == nil {
		return
	}
	s.posted.Add(-1)
	slot := int(uint64(wc.wr_id) & maxUserWRID)
	c := Completion{WRID: uint64(slot), Status: int(wc.status), Opcode: int(wc.opcode),
		Bytes: int(wc.byte_len), Text: C.GoString(C.ibv_wc_status_str(uint32(wc.status)))}
	s.mu.Lock()
	id := s.qps[uint32(wc.qp_num)]
	s.mu.Unlock()
	if c.Status != 0 || id == nil || !id.recvs.put(c) {
		s.Repost(slot)
	}
}

// createQPOnSRQ is createQP for an accepted id whose receives come from s:
// its QP has no receive queue, so it counts only its sends on the pooled
// CQ, and its receive completions come on the SRQ's share.
func (id *ID) createQPOnSRQ(pd *PD, q QPInit, s *SRQ) error {
	id.mu.Lock()
	defer id.mu.Unlock()
	if id.cid == nil {
		return &OpError{Op: "rdma_create_qp", Err: ErrClosed}
	}
	verbs := id.cid.verbs
	if verbs == nil || verbs != s.verbs {
		return opError("rdma_create_qp", syscall.ENODEV)
	}
	cpd, err := pd.live()
	if err != nil {
		return err
	}
	want := int(q.MaxSendWR)
	for attempt := 0; ; attempt++ {
		cq, err := s.pool.reserve(want)
		if err != nil {
			return err
		}
		caps := C.struct_rf_qp_caps{
			max_send_wr: C.uint32_t(q.MaxSendWR), max_send_sge: C.uint32_t(q.MaxSendSGE),
			max_inline_data: C.uint32_t(q.MaxInlineData),
		}
		s.mu.Lock()
		srq, srqCQ := s.srq, s.cq
		s.mu.Unlock()
		if srq == nil {
			s.pool.release(cq, want)
			return &OpError{Op: "rdma_create_qp", Err: ErrClosed, Detail: "the listener's SRQ is closed"}
		}
		ret, errno := withCSlot(func() qpResult {
			ret, errno := C.rf_create_qp_srq(id.cid, cpd, cq.cq, srqCQ.cq, srq, C.int(id.qpType), C.uintptr_t(id.key), &caps, boolInt(q.SQSigAll))
			return qpResult{ret, errno}
		}).split()
		if ret != 0 {
			s.pool.release(cq, want)
			return qpError(errno, q, verbs)
		}
		got := int(caps.max_send_wr)
		if got <= want || s.pool.grow(cq, got-want) {
			id.cq, id.cqPool, id.cqShare, id.hasQP = cq, s.pool, max(got, want), true
			break
		}
		id.channel.destroyQP(id.cid)
		s.pool.release(cq, want)
		if attempt > 0 {
			return &OpError{Op: "rdma_create_qp", Err: syscall.ENOSPC,
				Detail: fmt.Sprintf("no completion queue has room for the %d entries the QP was given", got)}
		}
		want = got
	}
	id.srqQPNum = uint32(C.rf_id_qp_num(id.cid))
	if err := s.attach(id, id.srqQPNum); err != nil {
		id.channel.destroyQP(id.cid)
		id.cqPool.release(id.cq, id.cqShare)
		id.cq, id.hasQP = nil, false
		return err
	}
	id.srq = s
	return nil
}

// leaveSRQ detaches the id's destroyed QP from its SRQ; the caller holds
// id.mu and has destroyed the QP, and the id still holds its device.
func (id *ID) leaveSRQ() {
	if id.srq != nil {
		id.srq.detach(id, id.srqQPNum)
		id.srq = nil
	}
}

// PostSendSRQ sends the first n bytes of a slot of the id's SRQ, one its
// receive completion handed over (the echo sends a message back from
// where it arrived). The slot's memory lives as long as the SRQ, which
// outlives the id's QP: the post, under the id's lock, never reaches
// freed memory.
func (id *ID) PostSendSRQ(slot, n int, wrID uint64) error {
	if wrID > maxUserWRID {
		return fmt.Errorf("rdma_post_send: work request id %d is over %d", wrID, maxUserWRID)
	}
	return id.call("rdma_post_send", func(cid *C.struct_rdma_cm_id) (C.int, error) {
		s := id.srq
		if s == nil {
			return -1, fmt.Errorf("the id receives from no SRQ")
		}
		if slot < 0 || slot >= s.slots || n < 0 || n > s.slotSize {
			return -1, fmt.Errorf("slot %d, length %d: outside the SRQ's %d slots of %d bytes", slot, n, s.slots, s.slotSize)
		}
		s.mu.Lock()
		mem, mr := s.mem, s.mr
		s.mu.Unlock()
		ret, errno := C.rf_post_send(cid, encodeWRID(id.key, false, wrID), unsafe.Add(mem, slot*s.slotSize), C.size_t(n), mr, 0)
		return ret, errno
	})
}

// closeSRQ closes a listener's SRQ as the listener goes: at once if no
// QP receives from it, else with the last one.
func (id *ID) closeSRQ() {
	if id.requestSRQ != nil {
		id.requestSRQ.Close()
	}
}
