//go:build linux && cgo

package rdmacm

/*
#include "shim.h"
*/
import "C"

import (
	"encoding/binary"
	"net/netip"
	"unsafe"
)

// Facts reads the id's live facts: local and remote address and port,
// device, port number, QP number and state.
func (id *ID) Facts() (Facts, error) {
	var f C.struct_rf_facts
	err := id.call("rdma_get_local_addr", func(cid *C.struct_rdma_cm_id) (C.int, error) {
		C.rf_facts(cid, &f)
		return 0, nil
	})
	if err != nil {
		return Facts{}, err
	}
	out := Facts{
		Local:   netip.AddrPortFrom(sockaddrIP(&f.local), uint16(f.local_port)),
		Remote:  netip.AddrPortFrom(sockaddrIP(&f.remote), uint16(f.remote_port)),
		Device:  C.GoString(&f.device[0]),
		PortNum: int(f.port_num),
		HasQP:   f.has_qp != 0,
	}
	if out.HasQP {
		out.QPNum = uint32(f.qp_num)
		out.RemoteQPNum = uint32(f.dest_qp_num)
		out.QPType = QPType(f.qp_type)
		out.QPState = qpStateName(int(f.qp_state))
		if qpn, qkey, ok := id.UDPeer(); ok {
			out.RemoteQPNum, out.RemoteQKey = qpn, qkey
		}
	}
	return out, nil
}

// sockaddrIP reads the address of an AF_INET or AF_INET6 sockaddr.
func sockaddrIP(ss *C.struct_sockaddr_storage) netip.Addr {
	raw := unsafe.Slice((*byte)(unsafe.Pointer(ss)), unsafe.Sizeof(*ss))
	switch binary.NativeEndian.Uint16(raw[0:2]) {
	case 2: // AF_INET: family, port, 4-byte address
		return netip.AddrFrom4([4]byte(raw[4:8]))
	case 10: // AF_INET6: family, port, flowinfo, 16-byte address
		return netip.AddrFrom16([16]byte(raw[8:24]))
	}
	return netip.Addr{}
}
