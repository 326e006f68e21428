//go:build linux && cgo

package rdmacm

/*
#cgo LDFLAGS: -lrdmacm -libverbs
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"sync"
	"unsafe"
)

// Devices lists the RDMA devices librdmacm can use, with their ports and
// limits. On a host without RDMA devices it fails with ENODEV.
func Devices() ([]Device, error) {
	var n C.int
	devicesMu.Lock()
	list, err := C.rf_get_devices(&n)
	devicesMu.Unlock()
	if list == nil {
		return nil, opError("rdma_get_devices", err)
	}
	defer C.rdma_free_devices(list)
	devs := make([]Device, 0, int(n))
	for i := 0; i < int(n); i++ {
		var a C.struct_rf_device_attr
		if ret, err := C.rf_device_attr(list, C.int(i), &a); ret != 0 {
			return nil, opError("ibv_query_device", err)
		}
		d := Device{
			Name:      C.GoString(&a.name[0]),
			GUID:      formatGUID(uint64(a.guid)),
			NodeType:  nodeTypeName(int(a.node_type)),
			Transport: transportName(int(a.transport)),
			Limits: Limits{
				MaxQP: int(a.max_qp), MaxQPWR: int(a.max_qp_wr), MaxSGE: int(a.max_sge),
				MaxCQE: int(a.max_cqe), MaxMR: int(a.max_mr), MaxPD: int(a.max_pd),
				MaxQPRdAtom: int(a.max_qp_rd_atom), MaxQPInitRdAtom: int(a.max_qp_init_rd_atom),
				PhysicalPortsNum: int(a.phys_port_cnt),
				MaxSRQ:           int(a.max_srq), MaxSRQWR: int(a.max_srq_wr), MaxSRQSGE: int(a.max_srq_sge),
			},
		}
		for p := 1; p <= int(a.phys_port_cnt); p++ {
			var pa C.struct_rf_port_attr
			if ret, err := C.rf_port_attr(list, C.int(i), C.int(p), &pa); ret != 0 {
				return nil, opError("ibv_query_port", err)
			}
			d.Ports = append(d.Ports, Port{
				Num: p, State: portStateName(int(pa.state)),
				ActiveMTU: mtuBytes(int(pa.active_mtu)), LinkLayer: linkLayerName(int(pa.link_layer)),
			})
		}
		devs = append(devs, d)
	}
	return devs, nil
}

// PD is a protection domain allocated on a named device. When the device
// is removed, the PD is released with everything else of it (so that the
// removal can complete), and the next QP made on it allocates it again on
// the device of that name, if there is one by then.
type PD struct {
	mu     sync.Mutex
	pd     *C.struct_ibv_pd
	list   **C.struct_ibv_context // keeps the device context open
	life   *deviceLife
	device string
	lost   bool // released by the device's removal
	closed bool
}

// AllocPD allocates a protection domain on the named device (ibv_alloc_pd),
// on the device context librdmacm uses, so ids can be created on it.
func AllocPD(device string) (*PD, error) {
	p := &PD{device: device}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.allocLocked(); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *PD) allocLocked() error {
	cname := C.CString(p.device)
	defer C.free(unsafe.Pointer(cname))
	var list **C.struct_ibv_context
	devicesMu.Lock()
	pd, err := C.rf_alloc_pd(cname, &list)
	devicesMu.Unlock()
	if pd == nil {
		return opError("ibv_alloc_pd("+p.device+")", memlockHint(err))
	}
	life, err := lifeOf(pd.context)
	if err == nil && !life.addPD(p) {
		err = &OpError{Op: "ibv_alloc_pd(" + p.device + ")", Err: errNoDevice, Detail: "the device is being removed"}
	}
	if err != nil {
		C.ibv_dealloc_pd(pd)
		C.rdma_free_devices(list)
		return err
	}
	p.pd, p.list, p.life, p.lost = pd, list, life, false
	return nil
}

// Device is the name of the device the PD was allocated on.
func (p *PD) Device() string { return p.device }

// Allocated reports whether the PD holds a protection domain now: false
// once its device was removed, until a QP allocates it again.
func (p *PD) Allocated() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pd != nil
}

// Close deallocates the PD. It fails with EBUSY while QPs or memory regions
// still use it; the PD then stays usable and Close may be called again.
func (p *PD) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pd == nil {
		p.closed = true
		return nil
	}
	if ret, err := C.ibv_dealloc_pd(p.pd); ret != 0 {
		if err == nil {
			err = errnoFromRet(int(ret))
		}
		return opError("ibv_dealloc_pd", err)
	}
	p.life.dropPD(p)
	p.pd, p.life, p.closed = nil, nil, true
	C.rdma_free_devices(p.list)
	p.list = nil
	return nil
}

// lose releases the PD of a removed device's life; its QPs and memory
// regions are destroyed already.
func (p *PD) lose(l *deviceLife) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.life != l || p.pd == nil {
		return
	}
	C.ibv_dealloc_pd(p.pd)
	C.rdma_free_devices(p.list)
	p.pd, p.list, p.life, p.lost = nil, nil, nil, true
}

// live is the PD to make a QP on: nil for the device's default PD (a nil
// p), allocated again if the device's removal released it.
func (p *PD) live() (*C.struct_ibv_pd, error) {
	if p == nil {
		return nil, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pd == nil && p.lost && !p.closed {
		if err := p.allocLocked(); err != nil {
			return nil, err
		}
	}
	if p.pd == nil {
		return nil, &OpError{Op: "ibv_alloc_pd(" + p.device + ")", Err: ErrClosed}
	}
	return p.pd, nil
}
