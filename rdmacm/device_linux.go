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
	list, err := C.rf_get_devices(&n)
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

// PD is a protection domain allocated on a named device.
type PD struct {
	mu     sync.Mutex
	pd     *C.struct_ibv_pd
	list   **C.struct_ibv_context // keeps the device context open
	device string
}

// AllocPD allocates a protection domain on the named device (ibv_alloc_pd),
// on the device context librdmacm uses, so ids can be created on it.
func AllocPD(device string) (*PD, error) {
	cname := C.CString(device)
	defer C.free(unsafe.Pointer(cname))
	var list **C.struct_ibv_context
	pd, err := C.rf_alloc_pd(cname, &list)
	if pd == nil {
		return nil, opError("ibv_alloc_pd("+device+")", err)
	}
	return &PD{pd: pd, list: list, device: device}, nil
}

// Device is the name of the device the PD was allocated on.
func (p *PD) Device() string { return p.device }

// Close deallocates the PD. It fails with EBUSY while QPs or memory regions
// still use it; the PD then stays usable and Close may be called again.
func (p *PD) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pd == nil {
		return nil
	}
	if ret, err := C.ibv_dealloc_pd(p.pd); ret != 0 {
		if err == nil {
			err = errnoFromRet(int(ret))
		}
		return opError("ibv_dealloc_pd", err)
	}
	p.pd = nil
	C.rdma_free_devices(p.list)
	p.list = nil
	return nil
}

func (p *PD) c() *C.struct_ibv_pd {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pd
}
