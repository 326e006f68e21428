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
	"syscall"
	"time"
	"unsafe"
)

// Buffer is C memory registered for sends and receives on one id's QP. The
// NIC never sees Go memory.
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
		return 0, nil
	})
	if err != nil {
		C.free(b.mem)
		return nil, err
	}
	id.buffers.track(b)
	return b, nil
}

// Bytes is the buffer's memory. It stays valid until Close.
func (b *Buffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.mem == nil {
		return nil
	}
	return unsafe.Slice((*byte)(b.mem), b.size)
}

// Close deregisters and frees the buffer. It is idempotent.
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

func (b *Buffer) region(n int) (unsafe.Pointer, *C.struct_ibv_mr, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.mem == nil {
		return nil, nil, ErrClosed
	}
	if n < 0 || n > b.size {
		return nil, nil, fmt.Errorf("length %d is outside the buffer's %d bytes", n, b.size)
	}
	return b.mem, b.mr, nil
}

// PostRecv posts a receive of up to the whole buffer (rdma_post_recv).
// wrID, at most 2^31-1, comes back in the completion.
func (id *ID) PostRecv(b *Buffer, wrID uint64) error {
	mem, mr, err := b.region(b.size)
	if err == nil && wrID > maxUserWRID {
		err = fmt.Errorf("work request id %d is over %d", wrID, maxUserWRID)
	}
	if err != nil {
		return fmt.Errorf("rdma_post_recv: %w", err)
	}
	return id.call("rdma_post_recv", func(cid *C.struct_rdma_cm_id) (C.int, error) {
		ret, errno := C.rf_post_recv(cid, encodeWRID(id.key, true, wrID), mem, C.size_t(b.size), mr)
		return ret, errno
	})
}

// PostSend posts a signalled send of the buffer's first n bytes
// (rdma_post_send). wrID, at most 2^31-1, comes back in the completion.
func (id *ID) PostSend(b *Buffer, n int, wrID uint64) error {
	mem, mr, err := b.region(n)
	if err == nil && wrID > maxUserWRID {
		err = fmt.Errorf("work request id %d is over %d", wrID, maxUserWRID)
	}
	if err != nil {
		return fmt.Errorf("rdma_post_send: %w", err)
	}
	return id.call("rdma_post_send", func(cid *C.struct_rdma_cm_id) (C.int, error) {
		ret, errno := C.rf_post_send(cid, encodeWRID(id.key, false, wrID), mem, C.size_t(n), mr, 0)
		return ret, errno
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

// buffers are an id's registered buffers, deregistered before its QP is
// destroyed.
type buffers struct {
	mu   sync.Mutex
	list []*Buffer
}

func (bs *buffers) track(b *Buffer) {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	bs.list = append(bs.list, b)
}

func (bs *buffers) close() {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	for _, b := range bs.list {
		b.Close()
	}
	bs.list = nil
}

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
