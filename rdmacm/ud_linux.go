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
	"syscall"
	"unsafe"
)

// A UD QP has no peer of its own: every send names its destination (an
// address handle, the remote QP's number and its Q_Key). An active UD id
// takes them from its SIDR reply, which its ESTABLISHED carries; a UD
// listener has one QP of its own, made with the listening id, whose number
// and Q_Key every SIDR reply names, and it answers each message through an
// address handle made from the message's completion and GRH.

// udState is a UD id's data-path addressing, under the id's lock.
type udState struct {
	// The SIDR reply's, on an active id.
	peer              *C.struct_ibv_ah
	peerQPN, peerQKey uint32
	// A listener's own QP, set once at CreateEP: its number goes in each
	// request's rdma_accept, its Q_Key in each reply.
	listenQPN, qkey uint32
	// Address handles back to the senders a listener replied to, by
	// source (slid and address).
	replies map[string]*C.struct_ibv_ah
}

// maxReplyAHs bounds a listener's cache of address handles; past it the
// cache starts again (Reply's callers wait for each reply's send, so no
// send in flight uses a handle then).
const maxReplyAHs = 4096

// createDatagramListenerQP gives a passive UD id its own QP (rdma_create_qp
// on the listening id, which moves it to RTS with the port space's Q_Key),
// so that every SIDR reply names one QP that lives as long as the
// listener. A listener on a wildcard address has no device to make it on:
// its requests then get a QP each, as before, which nothing keeps.
func (id *ID) createDatagramListenerQP(ai *AddrInfo, pd *PD, qp *QPInit) error {
	if qp == nil || !ai.Passive || !Datagram(ai.PortSpace, ai.QPType) || id.cid.verbs == nil {
		return nil
	}
	if err := id.createQP(pd, *qp); err != nil {
		return err
	}
	var qkey C.uint32_t
	return id.call("ibv_query_qp", func(cid *C.struct_rdma_cm_id) (C.int, error) {
		ret, errno := C.rf_qp_qkey(cid, &qkey)
		if ret == 0 {
			id.ud.listenQPN, id.ud.qkey = uint32(cid.qp.qp_num), uint32(qkey)
		}
		return ret, errno
	})
}

// datagramQP reports whether the listener answers requests with its own
// QP, so that they need none.
func (l *ID) datagramQP() bool { return l.ud.listenQPN != 0 }

// acceptQPNum is the QP number a request's rdma_accept names when the
// request has no QP: its listener's UD QP (0: none).
func (id *ID) acceptQPNum() uint32 {
	if id.listener == nil || id.hasQP {
		return 0
	}
	return id.listener.ud.listenQPN
}

// datagramEstablished takes the SIDR reply's addressing out of a UD id's
// ESTABLISHED: an address handle from its path, and the remote QP's number
// and Q_Key. It runs on the event loop, before the event is delivered; a
// failure is the event's Err.
func (id *ID) datagramEstablished(e *Event, ev *C.struct_rf_event) {
	if e.Type != Established || !id.Connectionless() {
		return
	}
	attr := ev.ah_attr
	err := id.call("ibv_create_ah", func(cid *C.struct_rdma_cm_id) (C.int, error) {
		ah, errno := C.rf_create_ah(cid, &attr)
		if ah == nil {
			if errno == nil {
				errno = syscall.EIO
			}
			return -1, errno
		}
		if id.ud.peer != nil {
			C.ibv_destroy_ah(id.ud.peer)
		}
		id.ud.peer, id.ud.peerQPN, id.ud.peerQKey = ah, e.QPNum, e.QKey
		return 0, nil
	})
	if err != nil {
		e.Err = fmt.Errorf("%w: the SIDR reply came, but no address handle to the remote QP could be made", err)
	}
}

// UDPeer is the remote QP's number and Q_Key a UD id's SIDR reply gave it,
// once its ESTABLISHED made the address handle to it.
func (id *ID) UDPeer() (qpNum, qkey uint32, ok bool) {
	id.mu.Lock()
	defer id.mu.Unlock()
	return id.ud.peerQPN, id.ud.peerQKey, id.ud.peer != nil
}

// postDatagram posts a UD send of the buffer's first n bytes to the SIDR
// reply's QP: PostSend on a UD id.
func (id *ID) postDatagram(b *Buffer, n int, wrID uint64) error {
	return id.call("ibv_post_send", func(cid *C.struct_rdma_cm_id) (C.int, error) {
		if id.ud.peer == nil {
			return -1, errors.New("a UD QP sends to an address handle, and this id has none: it is a listener, or its SIDR reply (ESTABLISHED) has not come")
		}
		return b.post(n, func(mem unsafe.Pointer, mr *C.struct_ibv_mr) (C.int, error) {
			ret, errno := C.rf_post_ud_send(cid, encodeWRID(id.key, false, wrID), mem, C.size_t(n), mr,
				id.ud.peer, C.uint32_t(id.ud.peerQPN), C.uint32_t(id.ud.peerQKey))
			return ret, errno
		})
	})
}

// Reply sends the message a UD receive put in b (completion c: the GRH,
// then c.Bytes-GRHSize bytes) back to its sender's QP, through an address
// handle made from the completion and GRH (ibv_create_ah_from_wc) and kept
// for that sender, with the id's own Q_Key. Wait for each reply's send
// completion before the next reply.
func (id *ID) Reply(b *Buffer, c Completion, wrID uint64) error {
	if wrID > maxUserWRID {
		return fmt.Errorf("ibv_post_send: work request id %d is over %d", wrID, maxUserWRID)
	}
	if c.Bytes < GRHSize || c.Bytes > b.size {
		return fmt.Errorf("ibv_post_send: a UD receive of %d bytes cannot be echoed from a %d-byte buffer with its %d-byte GRH", c.Bytes, b.size, GRHSize)
	}
	return id.call("ibv_post_send", func(cid *C.struct_rdma_cm_id) (C.int, error) {
		return b.post(c.Bytes, func(mem unsafe.Pointer, mr *C.struct_ibv_mr) (C.int, error) {
			ah, err := id.replyAH(cid, c, mem)
			if err != nil {
				return -1, err
			}
			ret, errno := C.rf_post_ud_send(cid, encodeWRID(id.key, false, wrID), unsafe.Add(mem, GRHSize),
				C.size_t(c.Bytes-GRHSize), mr, ah, C.uint32_t(c.SrcQP), C.uint32_t(id.ud.qkey))
			return ret, errno
		})
	})
}

// replyAH is the address handle back to c's sender, from the cache or
// made now. The caller holds the id's and the buffer's locks.
func (id *ID) replyAH(cid *C.struct_rdma_cm_id, c Completion, grh unsafe.Pointer) (*C.struct_ibv_ah, error) {
	key := sourceKey(c.src, unsafe.Slice((*byte)(grh), GRHSize))
	if ah := id.ud.replies[key]; ah != nil {
		return ah, nil
	}
	if len(id.ud.replies) >= maxReplyAHs {
		id.destroyReplyAHs()
	}
	wc := C.struct_rf_completion{
		byte_len: C.uint32_t(c.Bytes), src_qp: C.uint32_t(c.SrcQP), wc_flags: C.uint32_t(c.src.wcFlags),
		slid: C.uint16_t(c.src.slid), sl: C.uint8_t(c.src.sl), dlid_path_bits: C.uint8_t(c.src.pathBits),
	}
	ah, errno := C.rf_ah_from_wc(cid, &wc, grh)
	if ah == nil {
		if errno == nil {
			errno = syscall.EINVAL // a GRH that names no known source
		}
		return nil, fmt.Errorf("ibv_create_ah_from_wc: no address handle back to the sender (QP %d): %w", c.SrcQP, errno)
	}
	if id.ud.replies == nil {
		id.ud.replies = map[string]*C.struct_ibv_ah{}
	}
	id.ud.replies[key] = ah
	return ah, nil
}

// sourceKey names a sender's address: its LID and the GRH's source (on
// RoCE v2 over IPv4, the IP header's, after 20 unused bytes).
func sourceKey(s udSource, grh []byte) string {
	src := grh[8:24] // the GRH's source GID
	if grh[0]>>4 != 6 && grh[20]>>4 == 4 {
		src = grh[32:36] // the IPv4 header's source address
	}
	return fmt.Sprintf("%d/%x", s.slid, src)
}

func (id *ID) destroyReplyAHs() {
	for k, ah := range id.ud.replies {
		C.ibv_destroy_ah(ah)
		delete(id.ud.replies, k)
	}
}

// releaseUD destroys the id's address handles, after its QP (no send in
// flight uses them) and before its PD can go. The caller holds id.mu.
func (id *ID) releaseUD() {
	if id.ud.peer != nil {
		C.ibv_destroy_ah(id.ud.peer)
		id.ud.peer = nil
	}
	id.destroyReplyAHs()
}

// LoadAt copies out n bytes from offset off of the buffer: a UD receive's
// message starts at GRHSize.
func (b *Buffer) LoadAt(off, n int) ([]byte, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.mem == nil {
		return nil, ErrClosed
	}
	if off < 0 || n < 0 || off+n > b.size {
		return nil, fmt.Errorf("bytes %d to %d are outside the buffer's %d", off, off+n, b.size)
	}
	return C.GoBytes(unsafe.Add(b.mem, off), C.int(n)), nil
}
