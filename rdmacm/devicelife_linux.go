//go:build linux && cgo

package rdmacm

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"sync"
	"time"
)

// deviceLife is one opening of an RDMA device by librdmacm, from the first
// QP or PD the binding makes on it until the device is removed and
// everything of it has been released. CQ pools and PDs are keyed by it,
// never by the ibv_context pointer: librdmacm frees the context once the
// device is gone and its last id destroyed, and malloc may hand the same
// address to the next device.
//
// A life holds an rdma_get_devices reference, so the context stays open
// while anything of the binding uses it, whatever ids come and go.
type deviceLife struct {
	verbs *C.struct_ibv_context
	name  string
	list  **C.struct_ibv_context
	// files are the context's descriptors (command and async), for
	// orphan.
	files [2]contextFile

	mu      sync.Mutex
	removed bool
	pools   map[*cqPool]struct{}
	pds     map[*PD]struct{}
	async   *asyncReader
	// released is closed once everything of the device is released and
	// librdmacm has closed its context.
	released chan struct{}
}

// lives maps the contexts the binding uses to their lives. A life stays
// here until it is released, so a context address in the map is never a
// freed one.
var lives = struct {
	sync.Mutex
	byVerbs map[*C.struct_ibv_context]*deviceLife
}{byVerbs: make(map[*C.struct_ibv_context]*deviceLife)}

// lifeOf returns the life of a live context (one an id or a device list
// holds), opening one on first use. A device being removed is ENODEV.
func lifeOf(verbs *C.struct_ibv_context) (*deviceLife, error) {
	lives.Lock()
	defer lives.Unlock()
	if l := lives.byVerbs[verbs]; l != nil {
		if l.isRemoved() {
			return nil, &OpError{Op: "rdma_create_qp", Err: errNoDevice, Detail: "the device " + l.name + " is being removed"}
		}
		return l, nil
	}
	var n C.int
	devicesMu.Lock()
	list, errno := C.rf_get_devices(&n)
	devicesMu.Unlock()
	if list == nil {
		return nil, opError("rdma_get_devices", errno)
	}
	found := false
	for _, v := range contextsOf(list, int(n)) {
		found = found || v == verbs
	}
	if !found {
		// librdmacm no longer lists it: the device is going.
		C.rdma_free_devices(list)
		return nil, &OpError{Op: "rdma_get_devices", Err: errNoDevice, Detail: "the id's device is no longer listed: it is being removed"}
	}
	l := &deviceLife{
		verbs: verbs, name: C.GoString(C.ibv_get_device_name(verbs.device)), list: list,
		pools: make(map[*cqPool]struct{}), pds: make(map[*PD]struct{}), released: make(chan struct{}),
	}
	for i, fd := range []C.int{verbs.cmd_fd, verbs.async_fd} {
		l.files[i].fd = fd
		C.rf_file_id(fd, &l.files[i].dev, &l.files[i].ino)
	}
	l.async = startAsyncReader(l)
	lives.byVerbs[verbs] = l
	return l, nil
}

func contextsOf(list **C.struct_ibv_context, n int) []*C.struct_ibv_context {
	if list == nil || n <= 0 {
		return nil
	}
	return unsafeSlice(list, n)
}

func (l *deviceLife) isRemoved() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.removed
}

// addPool and addPD make p part of the life, so the device's removal
// releases it; they fail once the removal began.
func (l *deviceLife) addPool(p *cqPool) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.removed {
		return false
	}
	l.pools[p] = struct{}{}
	return true
}

func (l *deviceLife) addPD(p *PD) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.removed {
		return false
	}
	l.pds[p] = struct{}{}
	return true
}

func (l *deviceLife) dropPD(p *PD) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.pds, p)
}

// deviceRemoved starts releasing the device whose context is verbs, once:
// its ids release their own part as each receives DEVICE_REMOVAL (see
// releaseForRemoval); the rest goes once they have.
func deviceRemoved(verbs *C.struct_ibv_context) {
	if verbs == nil {
		return
	}
	lives.Lock()
	l := lives.byVerbs[verbs]
	lives.Unlock()
	if l == nil {
		// The binding made nothing on this device, but librdmacm must
		// still learn it is gone to close the context it opened.
		go syncDevicesUntilGone(verbs, nil)
		return
	}
	l.mu.Lock()
	if l.removed {
		l.mu.Unlock()
		return
	}
	l.removed = true
	pools := make([]*cqPool, 0, len(l.pools))
	for p := range l.pools {
		pools = append(pools, p)
	}
	l.mu.Unlock()
	for _, p := range pools {
		p.markRemoved()
	}
	go l.reap(pools)
}

// removalWait bounds how long the release waits for the device's QPs to be
// destroyed (each id destroys its own at its DEVICE_REMOVAL, which the
// kernel sends to every id on the device at once).
var removalWait = 2 * time.Minute

// reap releases what remains of a removed device once its QPs are gone:
// the pools' CQs and completion channels, the PDs, the async event reader
// and the life's reference; then it has librdmacm notice the device's
// absence, so that it closes the context when its last id goes.
func (l *deviceLife) reap(pools []*cqPool) {
	deadline := time.After(removalWait)
	for _, p := range pools {
		select {
		case <-p.idle:
		case <-deadline:
		}
		p.close()
		if p.ch != nil {
			p.ch.forgetPool(p)
		}
	}
	l.mu.Lock()
	pds := make([]*PD, 0, len(l.pds))
	for p := range l.pds {
		pds = append(pds, p)
	}
	l.mu.Unlock()
	for _, p := range pds {
		p.lose(l)
	}
	l.async.close()
	syncDevicesUntilGone(l.verbs, l)
}

// syncDevicesUntilGone has librdmacm notice that the device of verbs is
// gone, so that it closes the context, whose descriptors the kernel waits
// for before the device's removal completes. rdma_get_devices compares
// librdmacm's device list with the kernel's and marks a device that left
// as dead, closing its context once no id holds it; the kernel's list
// drops the device shortly after the DEVICE_REMOVAL events. But when no
// device is left at all, librdmacm gives up before comparing (rdma-core
// 44, sync_devices_list) and keeps the context open until a device comes
// back, which the removal forbids: then the binding, which has released
// everything on the context, points its descriptors at /dev/null (see
// orphan). When l is given, its reference is dropped first and the life
// forgotten after.
func syncDevicesUntilGone(verbs *C.struct_ibv_context, l *deviceLife) {
	if l != nil {
		devicesMu.Lock()
		C.rdma_free_devices(l.list)
		l.list = nil
		devicesMu.Unlock()
	}
	deadline := time.Now().Add(removalWait)
	for delay := 10 * time.Millisecond; time.Now().Before(deadline); delay = min(2*delay, time.Second) {
		if !stillListed(verbs, l) {
			break
		}
		time.Sleep(delay)
	}
	if l != nil {
		lives.Lock()
		delete(lives.byVerbs, verbs)
		lives.Unlock()
		close(l.released)
	}
}

// stillListed asks librdmacm for its devices (which has it compare its list
// with the kernel's) and reports whether verbs is still among them; when
// there is no device at all, it orphans l's context.
func stillListed(verbs *C.struct_ibv_context, l *deviceLife) bool {
	devicesMu.Lock()
	defer devicesMu.Unlock()
	var n C.int
	list, _ := C.rf_get_devices(&n)
	if list == nil {
		if l != nil {
			l.orphan()
		}
		return false
	}
	defer C.rdma_free_devices(list)
	for _, v := range contextsOf(list, int(n)) {
		if v == verbs {
			return true
		}
	}
	return false
}

// devicesMu serialises the binding's rdma_get_devices calls with orphan,
// so that no call of the binding has librdmacm close the context while
// orphan replaces its descriptors.
var devicesMu sync.Mutex

// contextFile is one descriptor of a device context, with the identity of
// its file when the life began.
type contextFile struct {
	fd  C.int
	dev C.uint64_t
	ino C.uint64_t
}

// orphan releases the device files of a removed device's context that
// librdmacm keeps open, by pointing their descriptors at a read-only
// /dev/null: the kernel then completes the removal (Soft-RoCE cannot
// disassociate a context, so it waits for its files), and librdmacm, which
// closes the context once a device comes back, closes /dev/null instead.
// Nothing of the binding uses the context any more, and librdmacm makes
// no call on it but the PD's and the context's release. A descriptor that
// no longer names the device's file (librdmacm closed it meanwhile, and
// the number was reused) is left alone. The caller holds devicesMu.
func (l *deviceLife) orphan() {
	for _, f := range l.files {
		C.rf_orphan_fd(f.fd, f.dev, f.ino)
	}
}

// releaseForRemoval releases an id's part of a removed device at its
// DEVICE_REMOVAL, after the event was delivered: its QP, then its buffers'
// memory registrations (the memory itself stays until Close, since a
// reader may still hold it), its share of the pooled CQ and the
// rdma_cm_id, as Close would. Its queued events are still delivered;
// then its waits and calls fail with ErrClosed, and Close frees the
// buffers' memory.
func (id *ID) releaseForRemoval() {
	id.mu.Lock()
	defer id.mu.Unlock()
	if id.cid == nil {
		return
	}
	if id.key != 0 {
		ids.remove(id.key)
	}
	if id.channel != nil {
		id.reattachQP()
		id.channel.destroyQP(id.cid) // before its memory regions go
	}
	id.leaveSRQ()
	id.closeSRQ()
	id.releaseUD()
	id.buffers.deregister()
	C.rdma_destroy_ep(id.cid)
	id.cid = nil
	if id.cq != nil {
		id.cqPool.release(id.cq, id.cqShare)
		id.cq = nil
	}
	if id.channel != nil {
		id.channel.detach(id)
	}
	// Not close: the DEVICE_REMOVAL just delivered, and what came before
	// it, are still to be read; then the waits end with ErrClosed.
	id.events.seal()
	id.sends.seal()
	id.recvs.seal()
}

// deregister deregisters every buffer's memory region, keeping the memory.
func (bs *buffers) deregister() {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	for _, b := range bs.list {
		b.deregister()
	}
}

func (b *Buffer) deregister() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.mr != nil {
		C.ibv_dereg_mr(b.mr)
		b.mr = nil
	}
}
