//go:build linux && cgo

package rdmacm

/*
#include <stdlib.h>
#include "shim.h"

// rf_reg_remote registers memory a peer may RDMA READ and WRITE, on the
// id's PD (rdma_reg_read and rdma_reg_write each give only one of them).
static struct ibv_mr *rf_reg_remote(struct rdma_cm_id *id, void *addr, size_t len)
{
	return ibv_reg_mr(id->pd, addr, len,
			  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
}

// rf_post_onesided posts a signalled RDMA READ (read != 0) into, or RDMA
// WRITE from, addr; rdma_post_read and rdma_post_write are static inline.
static int rf_post_onesided(struct rdma_cm_id *id, int read, uint64_t wr_id, void *addr, size_t len,
			    struct ibv_mr *mr, uint64_t remote_addr, uint32_t rkey)
{
	if (read)
		return rdma_post_read(id, (void *)(uintptr_t)wr_id, addr, len, mr,
				      IBV_SEND_SIGNALED, remote_addr, rkey);
	return rdma_post_write(id, (void *)(uintptr_t)wr_id, addr, len, mr,
			       IBV_SEND_SIGNALED, remote_addr, rkey);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"syscall"
	"unsafe"
)

// RegisterRemoteBuffer is RegisterBuffer for memory the peer reaches with
// RDMA READ and WRITE (ibv_reg_mr with remote read and write access):
// Remote gives what the peer needs. The memory stays C memory; Store and
// Load copy in and out as for any buffer.
func (id *ID) RegisterRemoteBuffer(size int) (*Buffer, error) {
	if size <= 0 || size > 1<<30 {
		return nil, fmt.Errorf("ibv_reg_mr: buffer size %d must be between 1 and 1 GiB", size)
	}
	b := &Buffer{id: id, size: size, mem: C.calloc(1, C.size_t(size))}
	if b.mem == nil {
		return nil, opError("calloc", syscall.ENOMEM)
	}
	err := id.call("ibv_reg_mr", func(cid *C.struct_rdma_cm_id) (C.int, error) {
		if !id.hasQP {
			return -1, errors.New("the id has no QP")
		}
		mr, errno := C.rf_reg_remote(cid, b.mem, C.size_t(size))
		if mr == nil {
			return -1, memlockHint(errno)
		}
		b.mr = mr
		id.buffers.track(b) // under the id's lock: a Close running now frees it too
		return 0, nil
	})
	if err != nil {
		C.free(b.mem)
		return nil, err
	}
	return b, nil
}

// Remote is the buffer's address, rkey and length, as a peer's RDMA READ
// or WRITE names it.
func (b *Buffer) Remote() (RemoteMemory, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.mem == nil || b.mr == nil {
		return RemoteMemory{}, ErrClosed
	}
	return RemoteMemory{Addr: uint64(uintptr(b.mem)), RKey: uint32(b.mr.rkey), Len: uint32(b.size)}, nil
}

// PostWrite posts a signalled RDMA WRITE of the buffer's first n bytes to
// the peer's memory at r (rdma_post_write). Its completion comes to
// WaitSend; on RC it means the peer acknowledged the data.
func (id *ID) PostWrite(b *Buffer, n int, r RemoteMemory, wrID uint64) error {
	return id.postOneSided("rdma_post_write", false, b, n, r, wrID)
}

// PostRead posts a signalled RDMA READ of n bytes of the peer's memory at
// r into the start of the buffer (rdma_post_read). Its completion comes to
// WaitSend, once the data is in the buffer.
func (id *ID) PostRead(b *Buffer, n int, r RemoteMemory, wrID uint64) error {
	return id.postOneSided("rdma_post_read", true, b, n, r, wrID)
}

func (id *ID) postOneSided(op string, read bool, b *Buffer, n int, r RemoteMemory, wrID uint64) error {
	if wrID > maxUserWRID {
		return fmt.Errorf("%s: work request id %d is over %d", op, wrID, maxUserWRID)
	}
	if n < 1 || uint64(n) > uint64(r.Len) {
		return fmt.Errorf("%s: %d bytes do not fit the peer's %d", op, n, r.Len)
	}
	rd := C.int(0)
	if read {
		rd = 1
	}
	return id.call(op, func(cid *C.struct_rdma_cm_id) (C.int, error) {
		return b.post(n, func(mem unsafe.Pointer, mr *C.struct_ibv_mr) (C.int, error) {
			ret, errno := C.rf_post_onesided(cid, rd, encodeWRID(id.key, false, wrID), mem, C.size_t(n), mr,
				C.uint64_t(r.Addr), C.uint32_t(r.RKey))
			return ret, errno
		})
	})
}
