//go:build linux && cgo

package rdmacm

/*
#include "shim.h"
*/
import "C"

import (
	"errors"
	"os"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// EventChannel is an rdma_event_channel with its event loop: one goroutine
// that waits for the channel's descriptor in Go's network poller (no OS
// thread parked in C) and dispatches each event to the id it concerns.
type EventChannel struct {
	// reading is held by the event loop while librdmacm reads an event, and
	// read-held while a QP of the channel's ids is destroyed, or put on or
	// off its id (connect_linux.go): inside rdma_get_cm_event librdmacm
	// reads id->qp, and moves the QP itself (to RTR and RTS at
	// CONNECT_RESPONSE) when the id holds one, and an endpoint closed at
	// that moment must not free the QP under it.
	reading sync.RWMutex

	mu    sync.Mutex
	ch    *C.struct_rdma_event_channel
	poll  *os.File // a duplicate of the channel's descriptor, for the poller
	ids   map[*ID]struct{}
	pools map[*deviceLife]*cqPool
	// retired are pools whose poller failed: their QPs stay until closed,
	// new ones go to a new pool.
	retired []*cqPool
	closed  bool
	done    chan struct{}
	err     error // why the loop stopped, when not by Close
}

// NewEventChannel creates a channel (rdma_create_event_channel) and starts
// its event loop.
func NewEventChannel() (*EventChannel, error) {
	ch, err := C.rdma_create_event_channel()
	if ch == nil {
		return nil, opError("rdma_create_event_channel", err)
	}
	fd := int(ch.fd)
	if ret, err := C.rf_set_nonblock(ch.fd); ret != 0 {
		C.rdma_destroy_event_channel(ch)
		return nil, opError("fcntl(O_NONBLOCK)", err)
	}
	dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		C.rdma_destroy_event_channel(ch)
		return nil, opError("dup", err)
	}
	c := &EventChannel{
		ch:    ch,
		poll:  os.NewFile(uintptr(dup), "rdma_cm event channel"),
		ids:   make(map[*ID]struct{}),
		pools: make(map[*deviceLife]*cqPool),
		done:  make(chan struct{}),
	}
	go c.loop()
	return c, nil
}

func (c *EventChannel) loop() {
	defer close(c.done)
	raw, err := c.poll.SyscallConn()
	if err != nil {
		c.stop(err)
		return
	}
	var ev C.struct_rf_event
	var loopErr error
	err = raw.Read(func(uintptr) bool {
		for {
			c.reading.Lock()
			ret, errno := C.rf_next_event(c.ch, &ev)
			c.reading.Unlock()
			if ret != 0 {
				if errno == syscall.EAGAIN {
					return false // wait for the poller
				}
				loopErr = opError("rdma_get_cm_event", errno)
				return true
			}
			c.dispatch(&ev)
		}
	})
	if loopErr == nil && err != nil && !errors.Is(err, os.ErrClosed) {
		loopErr = err
	}
	if loopErr != nil {
		c.stop(loopErr)
	}
}

// stop records why the loop ended early and fails every id's waiters.
func (c *EventChannel) stop(err error) {
	c.mu.Lock()
	c.err = err
	members := c.members()
	c.mu.Unlock()
	for _, id := range members {
		id.deliver(Event{Type: channelFailed, ID: id, Err: err})
	}
}

// Err is why the event loop stopped by itself, or nil.
func (c *EventChannel) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *EventChannel) members() []*ID {
	out := make([]*ID, 0, len(c.ids))
	for id := range c.ids {
		out = append(out, id)
	}
	return out
}

// destroyQP destroys an id's QP, if it has one, while no event is being
// read (see reading).
func (c *EventChannel) destroyQP(cid *C.struct_rdma_cm_id) {
	c.reading.RLock()
	defer c.reading.RUnlock()
	C.rf_destroy_qp(cid)
}

// attach makes id a member of the channel, so Close destroys it. It fails
// once the channel is closing.
func (c *EventChannel) attach(id *ID) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClosed
	}
	c.ids[id] = struct{}{}
	return nil
}

func (c *EventChannel) detach(id *ID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.ids, id)
}

// cqPool returns the channel's completion queue pool for a device's life,
// making one if it has none or its poller failed.
func (c *EventChannel) cqPool(life *deviceLife) (*cqPool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, ErrClosed
	}
	if p := c.pools[life]; p != nil {
		if p.usable() {
			return p, nil
		}
		delete(c.pools, life)
		c.retired = append(c.retired, p)
	}
	p, err := newCQPool(life, c)
	if err != nil {
		return nil, err
	}
	if !life.addPool(p) {
		p.close()
		return nil, &OpError{Op: "ibv_create_cq", Err: errNoDevice, Detail: "the device " + life.name + " is being removed"}
	}
	c.pools[life] = p
	return p, nil
}

// forgetPool drops a pool its device's removal closed.
func (c *EventChannel) forgetPool(p *cqPool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pools[p.life] == p {
		delete(c.pools, p.life)
	}
}

// Close destroys every id still on the channel (accepted connections first),
// stops the loop and destroys the channel. It is idempotent.
func (c *EventChannel) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		<-c.done
		return nil
	}
	c.closed = true
	members := c.members()
	c.mu.Unlock()

	var errs []error
	// Accepted connections first: they are what users see as connected, and
	// their disconnect reaches peers before the listener goes away.
	for _, id := range members {
		if id.listener != nil {
			errs = append(errs, id.Close())
		}
	}
	for _, id := range members {
		if id.listener == nil {
			errs = append(errs, id.Close())
		}
	}
	c.mu.Lock()
	pools := append([]*cqPool(nil), c.retired...)
	for _, p := range c.pools {
		pools = append(pools, p)
	}
	c.mu.Unlock()
	for _, p := range pools {
		errs = append(errs, p.close())
	}
	errs = append(errs, c.poll.Close())
	<-c.done
	C.rdma_destroy_event_channel(c.ch)
	return errors.Join(errs...)
}
