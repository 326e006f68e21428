package agent

import (
	"fmt"
	"net/netip"
	"strings"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/rdmacm/rdmanl"
)

// heldObject is what the agent believes about one object, as the
// comparison with the kernel needs it.
type heldObject struct {
	address   string
	kind      pb.Kind
	status    pb.Status
	portSpace rdmanl.PortSpace
	// From its facts: its addresses, device and QP (zero when unknown).
	local, remote netip.AddrPort
	device        string
	qpNum         uint32
	qpType        string // rc, uc, ud
	// From its spec: what a listener binds (port), what an endpoint
	// connects to, so that an id still on its way (an endpoint connecting,
	// a connection being accepted) is known to be the object's.
	listenPort uint32
	dest       netip.AddrPort // an endpoint's destination, when numeric
	destPort   uint32
}

// kernelResources are the kernel's resources owned by the agent's process.
type kernelResources struct {
	ids []rdmanl.CMID
	qps []rdmanl.QP
}

// verdict is the kernel's word on one object.
type verdict struct {
	status pb.KernelStatus
	detail string
}

// compareWithKernel judges each object the agent holds against the
// kernel's resources of its process, and returns the resources that no
// object accounts for (leak suspects). Only settled objects are judged (a
// listener listening, an endpoint or connection established): others are
// moving between states the kernel and the agent do not see at the same
// instant, so they are left unchecked, but the ids they may hold are
// still accounted for (by their addresses and ports), never suspected.
func compareWithKernel(objs []heldObject, k kernelResources) (map[string]verdict, kernelResources) {
	x := indexKernel(k)
	out := make(map[string]verdict, len(objs))

	// Ids with a QP first: their QP numbers name them.
	for _, o := range objs {
		if settled(o) && o.kind != pb.Kind_LISTENER {
			out[o.address] = x.compareConnected(o)
		}
	}
	for _, o := range objs {
		if settled(o) && o.kind == pb.Kind_LISTENER {
			out[o.address] = x.compareListener(o)
		}
	}
	// What the others may hold.
	held := accountOf(objs)
	for i, id := range k.ids {
		if !x.idTaken[i] && held.accounts(id) {
			x.idTaken[i] = true
		}
	}
	qpOfID := map[uint32]bool{}
	for i, id := range k.ids {
		if x.idTaken[i] && id.HasQP {
			qpOfID[id.QPNum] = true
		}
	}
	var rest kernelResources
	for i, id := range k.ids {
		if !x.idTaken[i] {
			rest.ids = append(rest.ids, id)
		}
	}
	for i, q := range k.qps {
		if !x.qpTaken[i] && !qpOfID[q.Number] && !held.qps[q.Number] {
			rest.qps = append(rest.qps, q)
		}
	}
	return out, rest
}

// kernelIndex finds the kernel's resources by QP number and local
// address, and marks those an object accounts for.
type kernelIndex struct {
	k                kernelResources
	idsByQP          map[uint32][]int
	idsBySrc         map[netip.AddrPort][]int
	qpsByNum         map[uint32][]int
	idTaken, qpTaken []bool
}

func indexKernel(k kernelResources) *kernelIndex {
	x := &kernelIndex{k: k, idsByQP: map[uint32][]int{}, idsBySrc: map[netip.AddrPort][]int{}, qpsByNum: map[uint32][]int{},
		idTaken: make([]bool, len(k.ids)), qpTaken: make([]bool, len(k.qps))}
	for i, id := range k.ids {
		if id.HasQP {
			x.idsByQP[id.QPNum] = append(x.idsByQP[id.QPNum], i)
		}
		x.idsBySrc[addrKey(id.Src)] = append(x.idsBySrc[addrKey(id.Src)], i)
	}
	for i, q := range k.qps {
		x.qpsByNum[q.Number] = append(x.qpsByNum[q.Number], i)
	}
	return x
}

func addrKey(a netip.AddrPort) netip.AddrPort { return netip.AddrPortFrom(a.Addr().Unmap(), a.Port()) }

// heldAccount is what every object, settled or not, accounts for.
type heldAccount struct {
	locals      map[netip.AddrPort]bool
	qps         map[uint32]bool
	listenPorts map[[2]uint32]bool // port space, port
	destPorts   map[[2]uint32][]netip.AddrPort
}

func accountOf(objs []heldObject) heldAccount {
	h := heldAccount{locals: map[netip.AddrPort]bool{}, qps: map[uint32]bool{}, listenPorts: map[[2]uint32]bool{}, destPorts: map[[2]uint32][]netip.AddrPort{}}
	for _, o := range objs {
		if o.local.IsValid() {
			h.locals[addrKey(o.local)] = true
		}
		if o.qpNum != 0 {
			h.qps[o.qpNum] = true
		}
		if o.kind == pb.Kind_LISTENER && o.listenPort != 0 {
			h.listenPorts[[2]uint32{uint32(o.portSpace), o.listenPort}] = true
		}
		if o.kind == pb.Kind_ENDPOINT && o.destPort != 0 {
			k := [2]uint32{uint32(o.portSpace), o.destPort}
			h.destPorts[k] = append(h.destPorts[k], o.dest)
		}
	}
	return h
}

func settled(o heldObject) bool {
	switch o.kind {
	case pb.Kind_LISTENER:
		return o.status == pb.Status_LISTENING && o.local.IsValid()
	case pb.Kind_ENDPOINT, pb.Kind_CONNECTION:
		return (o.status == pb.Status_ESTABLISHED || o.status == pb.Status_DEGRADED) && o.qpNum != 0
	}
	return false
}

// compareConnected judges an established endpoint or connection: its
// cm_id (found by its QP number) with its addresses and state, and its QP
// with its type and state.
func (x *kernelIndex) compareConnected(o heldObject) verdict {
	k := x.k
	var diffs []string
	idx := -1
	for _, i := range x.idsByQP[o.qpNum] {
		if !x.idTaken[i] && sameDevice(o, k.ids[i].Device) {
			idx = i
			break
		}
	}
	if idx < 0 {
		// The id by its addresses: found so, it has another QP, or none.
		for _, i := range x.idsBySrc[addrKey(o.local)] {
			if id := k.ids[i]; !x.idTaken[i] && (!o.remote.IsValid() || sameAddr(id.Dst, o.remote)) && sameDevice(o, id.Device) {
				idx = i
				if id.HasQP {
					diffs = append(diffs, fmt.Sprintf("its cm_id has QP %d, the agent's QP is %d", id.QPNum, o.qpNum))
				} else {
					diffs = append(diffs, fmt.Sprintf("its cm_id has no QP, the agent's QP is %d", o.qpNum))
				}
				break
			}
		}
	}
	if idx < 0 {
		return verdict{pb.KernelStatus_KERNEL_MISSING, fmt.Sprintf("the kernel tracks no cm_id of this process with QP %d (%s)", o.qpNum, route(o.local, o.remote))}
	}
	x.idTaken[idx] = true
	id := k.ids[idx]
	if !sameAddr(id.Src, o.local) {
		diffs = append(diffs, fmt.Sprintf("its local address is %s in the kernel, %s in the agent", id.Src, o.local))
	}
	if o.remote.IsValid() && !sameAddr(id.Dst, o.remote) {
		diffs = append(diffs, fmt.Sprintf("its remote address is %s in the kernel, %s in the agent", id.Dst, o.remote))
	}
	// A datagram (UD) id's state says only how far its last resolution
	// went; a connected one is CONNECT while it is.
	if o.qpType != "ud" && id.State != rdmanl.CMConnect {
		diffs = append(diffs, fmt.Sprintf("its cm_id is %s in the kernel, %s in the agent", id.State, StatusWord(o.status)))
	}
	qpx := -1
	for _, i := range x.qpsByNum[o.qpNum] {
		if !x.qpTaken[i] && (id.Device == "" || k.qps[i].Device == id.Device) {
			qpx = i
			break
		}
	}
	if qpx < 0 {
		return verdict{pb.KernelStatus_KERNEL_MISSING, joinDiffs(append(diffs, fmt.Sprintf("the kernel tracks no QP %d of this process", o.qpNum)))}
	}
	x.qpTaken[qpx] = true
	q := k.qps[qpx]
	if t := strings.ToLower(q.Type.String()); o.qpType != "" && t != o.qpType {
		diffs = append(diffs, fmt.Sprintf("QP %d is %s in the kernel, %s in the agent", q.Number, t, o.qpType))
	}
	if q.State.String() != "RTS" {
		diffs = append(diffs, fmt.Sprintf("QP %d is %s in the kernel, not RTS as an %s %s's", q.Number, q.State, StatusWord(o.status), KindWord(o.kind)))
	}
	if len(diffs) > 0 {
		return verdict{pb.KernelStatus_KERNEL_MISMATCH, joinDiffs(diffs)}
	}
	return verdict{pb.KernelStatus_KERNEL_CONFIRMED, fmt.Sprintf("cm_id %d on %s/%d, %s, QP %d %s", id.Number, id.Device, id.Port, id.State, q.Number, q.State)}
}

// compareListener judges a listening listener: the kernel lists one
// listening id for it, or one per device for a wildcard address, and the
// QP a UD listener holds (the one its SIDR replies name).
func (x *kernelIndex) compareListener(o heldObject) verdict {
	var listening, other []rdmanl.CMID
	for _, i := range x.idsBySrc[addrKey(o.local)] {
		id := x.k.ids[i]
		if x.idTaken[i] || id.HasQP && id.QPNum != o.qpNum || id.PortSpace != o.portSpace {
			continue
		}
		x.idTaken[i] = true
		if id.State == rdmanl.CMListen {
			listening = append(listening, id)
		} else {
			other = append(other, id)
		}
	}
	switch {
	case len(listening) > 0:
		devs := make([]string, len(listening))
		for i, id := range listening {
			devs[i] = fmt.Sprintf("cm_id %d on %s", id.Number, id.Device)
		}
		detail := "LISTEN: " + strings.Join(devs, ", ")
		if o.qpNum != 0 {
			q, ok := x.takeQP(o, listening[0].Device)
			if !ok {
				return verdict{pb.KernelStatus_KERNEL_MISSING, detail + fmt.Sprintf("; the kernel tracks no QP %d of this process, the listener's", o.qpNum)}
			}
			if t := strings.ToLower(q.Type.String()); o.qpType != "" && t != o.qpType || q.State.String() != "RTS" {
				return verdict{pb.KernelStatus_KERNEL_MISMATCH, detail + fmt.Sprintf("; its QP %d is %s %s in the kernel, %s RTS in the agent", q.Number, t, q.State, o.qpType)}
			}
			detail += fmt.Sprintf(", QP %d %s", q.Number, q.State)
		}
		return verdict{pb.KernelStatus_KERNEL_CONFIRMED, detail}
	case len(other) > 0:
		return verdict{pb.KernelStatus_KERNEL_MISMATCH, fmt.Sprintf("its cm_id on %s (%s) is %s in the kernel, not LISTEN", o.local, o.portSpace, other[0].State)}
	}
	return verdict{pb.KernelStatus_KERNEL_MISSING, fmt.Sprintf("the kernel tracks no cm_id of this process on %s (%s)", o.local, o.portSpace)}
}

// takeQP finds and marks the kernel's QP o holds, on dev ("": any).
func (x *kernelIndex) takeQP(o heldObject, dev string) (rdmanl.QP, bool) {
	for _, i := range x.qpsByNum[o.qpNum] {
		if q := x.k.qps[i]; !x.qpTaken[i] && (dev == "" || q.Device == dev) {
			x.qpTaken[i] = true
			return q, true
		}
	}
	return rdmanl.QP{}, false
}

// accounts: an id no settled object claimed may still be one an object
// holds on its way: its local address or QP is one of an object's facts,
// its port a listener's (the listener itself while it is created, a
// connection being accepted), its destination an endpoint's.
func (h heldAccount) accounts(id rdmanl.CMID) bool {
	if h.locals[addrKey(id.Src)] || id.HasQP && h.qps[id.QPNum] || h.listenPorts[[2]uint32{uint32(id.PortSpace), uint32(id.Src.Port())}] {
		return true
	}
	for _, d := range h.destPorts[[2]uint32{uint32(id.PortSpace), uint32(id.Dst.Port())}] {
		if !d.IsValid() || sameAddr(id.Dst, d) {
			return true
		}
	}
	return false
}

func sameDevice(o heldObject, dev string) bool { return o.device == "" || dev == "" || o.device == dev }

// sameAddr compares addresses as the kernel and librdmacm may spell them
// (an IPv4 address in an IPv6 socket address).
func sameAddr(a, b netip.AddrPort) bool {
	return a.Port() == b.Port() && a.Addr().Unmap() == b.Addr().Unmap()
}

func route(local, remote netip.AddrPort) string {
	if remote.IsValid() {
		return local.String() + " to " + remote.String()
	}
	return local.String()
}

func joinDiffs(d []string) string { return strings.Join(d, "; ") }
