//go:build linux && cgo

package rdmacm

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// Buffer is C memory registered for sends and receives on one id's QP. The
// NIC never sees Go memory, and Go code never holds a slice of it: Store and
// Load copy under the buffer's lock, so a buffer closed meanwhile (by its
// id's Close) is never read or written after it is freed.
type Buffer struct {
	mu   sync.Mutex
	id   *ID
	mem  unsafe.Pointer
	size int
	mr   *C.struct_ibv_mr
}

// RegisterBuffer allocates size bytes of C memory and registers them on the
// id's PD (rdma_reg_msgs). Close the buffer, or the id, to release it.
func (id *ID) RegisterBuffer(size int) (*Buffer, error) {
	if size <= 0 || size > 1<<30 {
		return nil, fmt.Errorf("rdma_reg_msgs: buffer size %d must be between 1 and 1 GiB", size)
	}
	b := &Buffer{id: id, size: size, mem: C.calloc(1, C.size_t(size))}
	if b.mem == nil {
		return nil, opError("calloc", syscall.ENOMEM)
	}
	err := id.call("rdma_reg_msgs", func(cid *C.struct_rdma_cm_id) (C.int, error) {
		if !id.hasQP {
			return -1, errors.New("the id has no QP")
		}
		mr, errno := C.rf_reg_msgs(cid, b.mem, C.size_t(size))
		if mr == nil {
			return -1, memlockHint(errno)
		}
		b.mr = mr
		// Under the id's lock, so a Close running now frees it too.
		id.buffers.track(b)
		return 0, nil
	})
	if err != nil {
		C.free(b.mem)
		return nil, err
	}
	return b, nil
}

// Size is the buffer's size in bytes.
func (b *Buffer) Size() int { return b.size }

// Store copies p to the start of the buffer.
func (b *Buffer) Store(p []byte) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.mem == nil {
		return ErrClosed
	}
	if len(p) > b.size {
		return fmt.Errorf("%d bytes do not fit in the buffer's %d", len(p), b.size)
	}
	copy(unsafe.Slice((*byte)(b.mem), b.size), p)
	return nil
}

// Load copies out the buffer's first n bytes (a receive completion's Bytes).
func (b *Buffer) Load(n int) ([]byte, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.mem == nil {
		return nil, ErrClosed
	}
	if n < 0 || n > b.size {
		return nil, fmt.Errorf("length %d is outside the buffer's %d bytes", n, b.size)
	}
	return C.GoBytes(b.mem, C.int(n)), nil
}

// Close deregisters and frees the buffer. It is idempotent. Work requests
// still posted on it fail once it is deregistered (the NIC no longer
// reaches the memory), which puts the QP in the error state: close the id
// instead, which destroys the QP first.
func (b *Buffer) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.mem == nil {
		return nil
	}
	var err error
	if b.mr == nil {
		// deregistered already, by its device's removal
	} else if ret := C.ibv_dereg_mr(b.mr); ret != 0 {
		err = opError("ibv_dereg_mr", errnoFromRet(int(ret)))
	}
	C.free(b.mem)
	b.mem, b.mr = nil, nil
	return err
}

// post runs a post of the buffer's first n bytes with the buffer held, so
// that its memory and MR cannot be freed under the C call. The caller holds
// the id's lock (call): Close, which holds it too, waits for the post.
func (b *Buffer) post(n int, f func(mem unsafe.Pointer, mr *C.struct_ibv_mr) (C.int, error)) (C.int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.mem == nil {
		return -1, ErrClosed
	}
	if n < 0 || n > b.size {
		return -1, fmt.Errorf("length %d is outside the buffer's %d bytes", n, b.size)
	}
	return f(b.mem, b.mr)
}

// PostRecv posts a receive of up to the whole buffer (rdma_post_recv).
// wrID, at most 2^31-1, comes back in the completion. After Close it
// returns ErrClosed.
func (id *ID) PostRecv(b *Buffer, wrID uint64) error {
	if wrID > maxUserWRID {
		return fmt.Errorf("rdma_post_recv: work request id %d is over %d", wrID, maxUserWRID)
	}
	return id.call("rdma_post_recv", func(cid *C.struct_rdma_cm_id) (C.int, error) {
		return b.post(b.size, func(mem unsafe.Pointer, mr *C.struct_ibv_mr) (C.int, error) {
			ret, errno := C.rf_post_recv(cid, encodeWRID(id.key, true, wrID), mem, C.size_t(b.size), mr)
			return ret, errno
		})
	})
}

// PostSend posts a signalled send of the buffer's first n bytes
// (rdma_post_send). wrID, at most 2^31-1, comes back in the completion.
// After Close it returns ErrClosed.
func (id *ID) PostSend(b *Buffer, n int, wrID uint64) error {
	if wrID > maxUserWRID {
		return fmt.Errorf("rdma_post_send: work request id %d is over %d", wrID, maxUserWRID)
	}
	if id.qpType == UD {
		return id.postDatagram(b, n, wrID) // to the SIDR reply's QP
	}
	return id.call("rdma_post_send", func(cid *C.struct_rdma_cm_id) (C.int, error) {
		return b.post(n, func(mem unsafe.Pointer, mr *C.struct_ibv_mr) (C.int, error) {
			ret, errno := C.rf_post_send(cid, encodeWRID(id.key, false, wrID), mem, C.size_t(n), mr, 0)
			return ret, errno
		})
	})
}

// WaitSend waits for the next send completion.
func (id *ID) WaitSend(ctx context.Context) (Completion, error) {
	return id.waitCompletion(ctx, false)
}

// WaitRecv waits for the next receive completion.
func (id *ID) WaitRecv(ctx context.Context) (Completion, error) {
	return id.waitCompletion(ctx, true)
}

// RoundTrip measures one message's round trip to a peer that echoes it:
// post a receive into reply, send the first n bytes of msg, and wait for
// both completions, as rping does for each of its iterations.
func (id *ID) RoundTrip(ctx context.Context, msg, reply *Buffer, n int) (time.Duration, error) {
	if err := id.PostRecv(reply, 2); err != nil {
		return 0, err
	}
	start := time.Now()
	if err := id.PostSend(msg, n, 1); err != nil {
		return 0, err
	}
	if _, err := id.WaitSend(ctx); err != nil {
		return 0, err
	}
	if _, err := id.WaitRecv(ctx); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

// EchoOnce receives one message into buf and sends it back: the passive half
// of RoundTrip.
func (id *ID) EchoOnce(ctx context.Context, buf *Buffer) error {
	if err := id.PostRecv(buf, 3); err != nil {
		return err
	}
	c, err := id.WaitRecv(ctx)
	if err != nil {
		return err
	}
	if err := id.PostSend(buf, c.Bytes, 4); err != nil {
		return err
	}
	_, err = id.WaitSend(ctx)
	return err
}

// buffers are an id's registered buffers, freed by its Close once its QP
// is destroyed.
type buffers struct {
	mu   sync.Mutex
	list []*Buffer
}

func (bs *buffers) track(b *Buffer) {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	bs.list = append(bs.list, b)
}

// closeBuffers frees the id's buffers; the caller holds id.mu and has
// destroyed the QP, so no work request and no post can reach them.
func (id *ID) closeBuffers() {
	id.buffers.mu.Lock()
	defer id.buffers.mu.Unlock()
	if len(id.buffers.list) > 0 && id.cid != nil && id.cid.qp != nil {
		earlyFrees.Add(1)
	}
	for _, b := range id.buffers.list {
		b.Close()
	}
	id.buffers.list = nil
}

// earlyFrees counts buffers freed by an id's Close while its QP still
// existed, which would let the NIC or a post reach freed memory. It stays
// 0; the tests check so.
var earlyFrees atomic.Int64

// waitCompletion takes the id's next send or receive completion, routed to
// it by its channel's CQ poller.
func (id *ID) waitCompletion(ctx context.Context, recv bool) (Completion, error) {
	op, q := "send", id.sends
	if recv {
		op, q = "recv", id.recvs
	}
	c, err := q.next(ctx)
	if err != nil {
		return c, fmt.Errorf("waiting for a %s completion: %w", op, err)
	}
	if c.Status != 0 {
		return c, &CompletionError{Op: op, Completion: c}
	}
	return c, nil
}
