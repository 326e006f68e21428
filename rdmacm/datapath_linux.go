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
	"os"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
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
			return -1, errno
		}
		b.mr = mr
		return 0, nil
	})
	if err != nil {
		C.free(b.mem)
		return nil, err
	}
	id.comp.track(b)
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
	if ret := C.ibv_dereg_mr(b.mr); ret != 0 {
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
func (id *ID) PostRecv(b *Buffer, wrID uint64) error {
	mem, mr, err := b.region(b.size)
	if err != nil {
		return fmt.Errorf("rdma_post_recv: %w", err)
	}
	return id.call("rdma_post_recv", func(cid *C.struct_rdma_cm_id) (C.int, error) {
		ret, errno := C.rf_post_recv(cid, C.uint64_t(wrID), mem, C.size_t(b.size), mr)
		return ret, errno
	})
}

// PostSend posts a signalled send of the buffer's first n bytes
// (rdma_post_send).
func (id *ID) PostSend(b *Buffer, n int, wrID uint64) error {
	mem, mr, err := b.region(n)
	if err != nil {
		return fmt.Errorf("rdma_post_send: %w", err)
	}
	return id.call("rdma_post_send", func(cid *C.struct_rdma_cm_id) (C.int, error) {
		ret, errno := C.rf_post_send(cid, C.uint64_t(wrID), mem, C.size_t(n), mr, 0)
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

// completions waits for an id's work completions through its completion
// channels' descriptors in Go's network poller. One waiter per direction at
// a time.
type completions struct {
	mu      sync.Mutex
	send    *cqWaiter
	recv    *cqWaiter
	buffers []*Buffer
	closed  bool
}

type cqWaiter struct {
	cq   *C.struct_ibv_cq
	ch   *C.struct_ibv_comp_channel
	file *os.File
}

func (c *completions) track(b *Buffer) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buffers = append(c.buffers, b)
}

// close wakes any waiter and releases the buffers; it runs before the id's
// QP and CQs are destroyed.
func (c *completions) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.closed = true
	for _, w := range []*cqWaiter{c.send, c.recv} {
		if w != nil {
			w.file.Close()
		}
	}
	for _, b := range c.buffers {
		b.Close()
	}
	c.buffers = nil
}

// waiter returns the poller of the id's send or receive CQ, creating it on
// first use.
func (id *ID) waiter(recv bool) (*cqWaiter, error) {
	id.comp.mu.Lock()
	defer id.comp.mu.Unlock()
	if id.comp.closed {
		return nil, ErrClosed
	}
	slot := &id.comp.send
	if recv {
		slot = &id.comp.recv
	}
	if *slot != nil {
		return *slot, nil
	}
	w := &cqWaiter{}
	err := id.call("ibv_get_cq_event", func(cid *C.struct_rdma_cm_id) (C.int, error) {
		if !id.hasQP {
			return -1, errors.New("the id has no QP")
		}
		w.cq, w.ch = cid.send_cq, cid.send_cq_channel
		if recv {
			w.cq, w.ch = cid.recv_cq, cid.recv_cq_channel
		}
		if w.ch == nil {
			return -1, errors.New("the CQ has no completion channel")
		}
		if ret, errno := C.rf_set_nonblock(w.ch.fd); ret != 0 {
			return -1, errno
		}
		dup, err := unix.FcntlInt(uintptr(w.ch.fd), unix.F_DUPFD_CLOEXEC, 0)
		if err != nil {
			return -1, err
		}
		w.file = os.NewFile(uintptr(dup), "completion channel")
		return 0, nil
	})
	if err != nil {
		return nil, err
	}
	*slot = w
	return w, nil
}

func (id *ID) waitCompletion(ctx context.Context, recv bool) (Completion, error) {
	op := "send"
	if recv {
		op = "recv"
	}
	w, err := id.waiter(recv)
	if err != nil {
		return Completion{}, err
	}
	raw, err := w.file.SyscallConn()
	if err != nil {
		return Completion{}, err
	}
	w.file.SetReadDeadline(time.Time{})
	stop := context.AfterFunc(ctx, func() { w.file.SetReadDeadline(time.Unix(1, 0)) })
	defer stop()
	for {
		// Poll, arm, poll again: a completion that lands between the first
		// poll and the arm would otherwise raise no event.
		for _, arm := range []bool{false, true} {
			c, ok, err := id.pollCQ(w, arm)
			if err != nil {
				return Completion{}, err
			}
			if ok {
				if c.Status != 0 {
					return c, &CompletionError{Op: op, Completion: c}
				}
				return c, nil
			}
		}
		var takeErr error
		err := raw.Read(func(uintptr) bool {
			takeErr = id.call("ibv_get_cq_event", func(*C.struct_rdma_cm_id) (C.int, error) {
				ret, errno := C.rf_take_cq_event(w.ch)
				return ret, errno
			})
			return !errors.Is(takeErr, syscall.EAGAIN)
		})
		switch {
		case ctx.Err() != nil:
			return Completion{}, fmt.Errorf("waiting for a %s completion: %w", op, ctx.Err())
		case err != nil:
			return Completion{}, fmt.Errorf("waiting for a %s completion: %w", op, ErrClosed)
		case takeErr != nil:
			return Completion{}, takeErr
		}
	}
}

// pollCQ takes one completion if there is one; with arm, it first requests
// a notification for the next.
func (id *ID) pollCQ(w *cqWaiter, arm bool) (Completion, bool, error) {
	var wc C.struct_rf_completion
	var got C.int
	err := id.call("ibv_poll_cq", func(*C.struct_rdma_cm_id) (C.int, error) {
		if arm {
			if ret, errno := C.rf_arm(w.cq); ret != 0 {
				return ret, errno
			}
		}
		n, errno := C.rf_poll(w.cq, &wc)
		if n < 0 {
			return n, errno
		}
		got = n
		return 0, nil
	})
	if err != nil || got == 0 {
		return Completion{}, false, err
	}
	return Completion{
		WRID: uint64(wc.wr_id), Status: int(wc.status), Opcode: int(wc.opcode),
		Bytes: int(wc.byte_len), Text: C.GoString(C.ibv_wc_status_str(uint32(wc.status))),
	}, true, nil
}
