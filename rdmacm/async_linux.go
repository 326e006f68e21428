//go:build linux && cgo

package rdmacm

/*
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

	"golang.org/x/sys/unix"
)

// asyncReader reads a device context's async events (ibv_get_async_event)
// through Go's network poller, as the event and completion channels are
// read, acks each one at once (a QP or CQ cannot be destroyed while one of
// its events is unacknowledged) and delivers it to the ids it concerns.
// It runs for the device's life: it stops only after every QP and CQ of
// the device is destroyed.
type asyncReader struct {
	life *deviceLife
	poll *os.File
	done chan struct{}
	once sync.Once
	// events hands what the reader took to the dispatcher: the reader
	// must never wait for an id's lock, since a QP's destruction, which
	// holds it, waits for the reader's acks.
	events     *queue[asyncEvent]
	dispatched chan struct{}
}

// asyncEvent is one async event as the reader copied it.
type asyncEvent struct {
	kind  uint32
	name  string
	port  int
	qpKey uintptr
	cq    *C.struct_ibv_cq
	err   error // the reader failed
}

// startAsyncReader starts reading l's async events; nil when the
// descriptor cannot be polled (the device works without its events).
func startAsyncReader(l *deviceLife) *asyncReader {
	fd := l.verbs.async_fd
	if ret, _ := C.rf_set_nonblock(fd); ret != 0 {
		return nil
	}
	dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	r := &asyncReader{
		life: l, poll: os.NewFile(uintptr(dup), "async events"), done: make(chan struct{}),
		events: newQueue[asyncEvent](), dispatched: make(chan struct{}),
	}
	go r.loop()
	go r.dispatchLoop()
	return r
}

func (r *asyncReader) loop() {
	defer close(r.done)
	raw, err := r.poll.SyscallConn()
	if err != nil {
		return
	}
	var ev C.struct_rf_async_event
	raw.Read(func(uintptr) bool {
		for {
			ret, errno := C.rf_next_async_event(r.life.verbs, &ev)
			if ret != 0 {
				if errno == syscall.EAGAIN {
					return false
				}
				if !errors.Is(errno, syscall.EINTR) {
					// The device's events can no longer be read (it is
					// gone, or the descriptor failed): its ids hear of it.
					r.events.put(asyncEvent{err: opError("ibv_get_async_event", errno)})
					return true
				}
				continue
			}
			r.events.put(asyncEvent{
				kind: uint32(ev._type), name: C.GoString(C.ibv_event_type_str(uint32(ev._type))),
				port: int(ev.port_num), qpKey: uintptr(ev.qp_key), cq: ev.cq,
			})
		}
	})
}

func (r *asyncReader) dispatchLoop() {
	defer close(r.dispatched)
	for {
		ev, err := r.events.next(context.Background())
		if err != nil {
			return
		}
		r.dispatch(ev)
	}
}

// dispatch delivers one async event to the ids it concerns. A QP's or
// CQ's event names an object that may be gone by now (its destruction
// waited only for the ack): the id is found by key, the CQ by address among
// the live ids' own.
func (r *asyncReader) dispatch(ev asyncEvent) {
	if ev.err != nil {
		// The device's events can no longer be read (it is gone, or the
		// descriptor failed): its ids hear of it.
		r.life.deliver(Event{Type: DeviceFatal, Err: ev.err}, func(*ID) bool { return true })
		return
	}
	switch ev.kind {
	case C.IBV_EVENT_PORT_ERR, C.IBV_EVENT_PORT_ACTIVE:
		t := PortActive
		if ev.kind == C.IBV_EVENT_PORT_ERR {
			t = PortError
		}
		r.life.deliver(Event{Type: t, Status: ev.port}, func(id *ID) bool { return id.portLocked() == ev.port })
	case C.IBV_EVENT_QP_FATAL, C.IBV_EVENT_QP_REQ_ERR, C.IBV_EVENT_QP_ACCESS_ERR:
		if id := ids.get(ev.qpKey); id != nil {
			id.deliver(Event{Type: QPFatal, ID: id, Err: fmt.Errorf("ibv_get_async_event: %s: the QP is in the error state; its work requests are flushed", ev.name)})
		}
	case C.IBV_EVENT_CQ_ERR:
		r.life.deliver(Event{Type: CQError, Err: fmt.Errorf("ibv_get_async_event: %s: the completion queue the QP shares failed (an overflow); its QPs no longer complete work", ev.name)},
			func(id *ID) bool { return id.cq != nil && id.cq.cq == ev.cq })
	case C.IBV_EVENT_DEVICE_FATAL:
		r.life.deliver(Event{Type: DeviceFatal, Err: fmt.Errorf("ibv_get_async_event: %s: the device failed", ev.name)}, func(*ID) bool { return true })
	}
}

// deliver hands e to every live id on the life's device that match
// accepts; match runs under the id's lock.
func (l *deviceLife) deliver(e Event, match func(*ID) bool) {
	for _, id := range ids.all() {
		id.mu.Lock()
		on := id.cid != nil && id.cid.verbs == l.verbs && match(id)
		id.mu.Unlock()
		if on {
			e.ID = id
			id.deliver(e)
		}
	}
}

// portLocked is the id's port number; the caller holds id.mu.
func (id *ID) portLocked() int { return int(id.cid.port_num) }

// close stops the reader; the device's QPs and CQs must be gone.
func (r *asyncReader) close() {
	if r == nil {
		return
	}
	r.once.Do(func() {
		r.poll.Close()
		<-r.done
		r.events.close()
		<-r.dispatched
	})
}
