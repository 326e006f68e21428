package agent

import (
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/rdmacm"
	"github.com/rdmaform/rdmaform/rdmacm/rdmanl"
)

var ap = netip.MustParseAddrPort

// aFabric is a listener with one accepted connection and the endpoint
// that made it, as the agent holds them and as the kernel tracks them
// (the values of the recording in rdmacm/rdmanl/testdata).
func aFabric() ([]heldObject, kernelResources) {
	objs := []heldObject{
		{address: "listener.l", kind: pb.Kind_LISTENER, status: pb.Status_LISTENING, portSpace: rdmanl.PortSpaceTCP,
			local: ap("10.77.0.1:7931"), device: "rxe0", listenPort: 7931},
		{address: "listener.l/conn/1", kind: pb.Kind_CONNECTION, status: pb.Status_ESTABLISHED, portSpace: rdmanl.PortSpaceTCP,
			local: ap("10.77.0.1:7931"), remote: ap("10.77.0.1:59466"), device: "rxe0", qpNum: 18, qpType: "rc"},
		{address: "endpoint.e", kind: pb.Kind_ENDPOINT, status: pb.Status_ESTABLISHED, portSpace: rdmanl.PortSpaceTCP,
			local: ap("10.77.0.1:59466"), remote: ap("10.77.0.1:7931"), device: "rxe0", qpNum: 17, qpType: "rc",
			dest: ap("10.77.0.1:7931"), destPort: 7931},
	}
	k := kernelResources{
		ids: []rdmanl.CMID{
			{Device: "rxe0", Port: 1, Number: 0, State: rdmanl.CMListen, PortSpace: rdmanl.PortSpaceTCP, Src: ap("10.77.0.1:7931"), Dst: ap("0.0.0.0:0")},
			{Device: "rxe0", Port: 1, Number: 1, State: rdmanl.CMConnect, PortSpace: rdmanl.PortSpaceTCP, Src: ap("10.77.0.1:59466"), Dst: ap("10.77.0.1:7931"), HasQP: true, QPNum: 17, QPType: rdmanl.QPTypeRC},
			{Device: "rxe0", Port: 1, Number: 2, State: rdmanl.CMConnect, PortSpace: rdmanl.PortSpaceTCP, Src: ap("10.77.0.1:7931"), Dst: ap("10.77.0.1:59466"), HasQP: true, QPNum: 18, QPType: rdmanl.QPTypeRC},
		},
		qps: []rdmanl.QP{
			{Device: "rxe0", Port: 1, Number: 17, Remote: 18, Type: rdmanl.QPTypeRC, State: 3},
			{Device: "rxe0", Port: 1, Number: 18, Remote: 17, Type: rdmanl.QPTypeRC, State: 3},
		},
	}
	return objs, k
}

func TestKernelConfirmsAFabricItHoldsAlike(t *testing.T) {
	objs, k := aFabric()
	v, rest := compareWithKernel(objs, k)
	for _, o := range objs {
		if v[o.address].status != pb.KernelStatus_KERNEL_CONFIRMED {
			t.Errorf("%s: %v %q, want confirmed", o.address, v[o.address].status, v[o.address].detail)
		}
	}
	if len(rest.ids)+len(rest.qps) != 0 {
		t.Errorf("unaccounted for: %+v", rest)
	}
}

func TestKernelMissingAndMismatchSayWhat(t *testing.T) {
	objs, k := aFabric()
	k.qps = k.qps[:1]                   // QP 18 (the connection's) is gone
	k.qps[0].State = 6                  // QP 17 (the endpoint's) is ERR
	k.ids[0].State = rdmanl.CMAddrBound // the listener no longer listens
	v, _ := compareWithKernel(objs, k)
	want := map[string]struct {
		status pb.KernelStatus
		detail string
	}{
		"listener.l":        {pb.KernelStatus_KERNEL_MISMATCH, "is ADDR_BOUND in the kernel, not LISTEN"},
		"listener.l/conn/1": {pb.KernelStatus_KERNEL_MISSING, "the kernel tracks no QP 18 of this process"},
		"endpoint.e":        {pb.KernelStatus_KERNEL_MISMATCH, "QP 17 is ERR in the kernel, not RTS"},
	}
	for addr, w := range want {
		if got := v[addr]; got.status != w.status || !strings.Contains(got.detail, w.detail) {
			t.Errorf("%s: %v %q, want %v containing %q", addr, got.status, got.detail, w.status, w.detail)
		}
	}

	// The endpoint's cm_id gone altogether: missing, with its addresses.
	objs, k = aFabric()
	k.ids = append(k.ids[:1], k.ids[2])
	v, _ = compareWithKernel(objs, k)
	if got := v["endpoint.e"]; got.status != pb.KernelStatus_KERNEL_MISSING || !strings.Contains(got.detail, "no cm_id of this process with QP 17 (10.77.0.1:59466 to 10.77.0.1:7931)") {
		t.Errorf("endpoint.e: %v %q", got.status, got.detail)
	}
}

// An id nothing holds is left unaccounted for (a leak suspect); ids on
// their way (an endpoint connecting, a connection being accepted) are
// accounted for by their ports and left unjudged.
func TestKernelLeftoversAreOnlyThoseNothingHolds(t *testing.T) {
	objs, k := aFabric()
	objs = append(objs, heldObject{address: "endpoint.slow", kind: pb.Kind_ENDPOINT, status: pb.Status_CONNECTING,
		portSpace: rdmanl.PortSpaceTCP, dest: ap("10.77.0.1:7932"), destPort: 7932})
	k.ids = append(k.ids,
		rdmanl.CMID{Device: "rxe0", Number: 7, State: rdmanl.CMRouteResolved, PortSpace: rdmanl.PortSpaceTCP, Src: ap("10.77.0.1:40001"), Dst: ap("10.77.0.1:7932")},
		rdmanl.CMID{Device: "rxe0", Number: 8, State: rdmanl.CMConnect, PortSpace: rdmanl.PortSpaceTCP, Src: ap("10.77.0.1:7931"), Dst: ap("10.77.0.1:40002"), HasQP: true, QPNum: 30},
		rdmanl.CMID{Device: "rxe0", Number: 9, State: rdmanl.CMAddrBound, PortSpace: rdmanl.PortSpaceTCP, Src: ap("10.77.0.1:45000")},
	)
	k.qps = append(k.qps, rdmanl.QP{Device: "rxe0", Number: 30, Type: rdmanl.QPTypeRC, State: 2}, rdmanl.QP{Device: "rxe0", Number: 31, Type: rdmanl.QPTypeRC})
	v, rest := compareWithKernel(objs, k)
	if _, judged := v["endpoint.slow"]; judged {
		t.Error("a connecting endpoint was judged")
	}
	if len(rest.ids) != 1 || rest.ids[0].Number != 9 || len(rest.qps) != 1 || rest.qps[0].Number != 31 {
		t.Errorf("unaccounted for: %+v, want cm_id 9 and QP 31", rest)
	}
}

// A listener on a wildcard address is listed once per device.
func TestKernelConfirmsAWildcardListenerOnEveryDevice(t *testing.T) {
	objs := []heldObject{{address: "listener.any", kind: pb.Kind_LISTENER, status: pb.Status_LISTENING, portSpace: rdmanl.PortSpaceTCP,
		local: ap("0.0.0.0:7000"), listenPort: 7000}}
	k := kernelResources{ids: []rdmanl.CMID{
		{Device: "rxe0", Number: 1, State: rdmanl.CMListen, PortSpace: rdmanl.PortSpaceTCP, Src: ap("0.0.0.0:7000")},
		{Device: "rxe1", Number: 1, State: rdmanl.CMListen, PortSpace: rdmanl.PortSpaceTCP, Src: ap("0.0.0.0:7000")},
	}}
	v, rest := compareWithKernel(objs, k)
	if v["listener.any"].status != pb.KernelStatus_KERNEL_CONFIRMED || len(rest.ids) != 0 {
		t.Errorf("%+v, unaccounted %+v", v, rest)
	}
}

// heldListener registers a listening listener with its facts, as the
// agent does once rdma_listen succeeded.
func heldListener(a *Agent, addr, local string, port uint32) *object {
	o := a.newObject(addr, "tok", "", pb.Kind_LISTENER)
	o.impl = &listener{obj: o, spec: &pb.ListenerSpec{Address: "10.77.0.1", Port: port}, cfg: listenerConfig{portSpace: rdmacm.PSTCP}}
	o.st.status = pb.Status_LISTENING
	o.st.facts = &pb.Facts{LocalAddr: local, Device: "rxe0", Port: 1}
	a.reg.add(o)
	return o
}

// A leak is reported once it lasted confirmAfter: an event (the log), the
// metric counted once, and the view's leaks; a discrepancy of an object is
// an event of its history and a count of the metric, once.
func TestCheckKernelReportsLeaksAndDiscrepanciesOnce(t *testing.T) {
	a := New(nil)
	a.kernel.confirmAfter = 0 // two checks are enough
	l := heldListener(a, "listener.l", "10.77.0.1:7931", 7931)
	leak := rdmanl.CMID{Device: "rxe0", Port: 1, Number: 9, State: rdmanl.CMAddrBound, PortSpace: rdmanl.PortSpaceTCP, Src: ap("10.77.0.1:45000")}
	listening := rdmanl.CMID{Device: "rxe0", Port: 1, Number: 0, State: rdmanl.CMListen, PortSpace: rdmanl.PortSpaceTCP, Src: ap("10.77.0.1:7931")}
	kernel := kernelResources{ids: []rdmanl.CMID{listening, leak}}
	a.kernel.read = func() (kernelResources, error) { return kernel, nil }

	v := a.CheckKernel()
	if len(v.Leaks) != 0 || v.Confirmed != 1 {
		t.Fatalf("first check: %d leaks, %d confirmed; want a suspect only, and the listener confirmed", len(v.Leaks), v.Confirmed)
	}
	if k := l.snapshot(false).Kernel; k.GetStatus() != pb.KernelStatus_KERNEL_CONFIRMED {
		t.Errorf("listener's kernel field: %v", k)
	}
	for range 2 {
		v = a.CheckKernel()
	}
	if len(v.Leaks) != 1 || v.Leaks[0].Number != 9 || v.Leaks[0].State != "ADDR_BOUND" || v.Leaks[0].LocalAddr != "10.77.0.1:45000" || v.Discrepancies != 1 {
		t.Fatalf("leaks %v, discrepancies %d; want cm_id 9", v.Leaks, v.Discrepancies)
	}
	if n := testutil.ToFloat64(a.metrics.kernel.WithLabelValues("leak")); n != 1 {
		t.Errorf("rdmaform_kernel_discrepancies_total{kind=leak} = %v after 3 checks of one leak, want 1", n)
	}

	// The listener's id stops listening: a mismatch, an event, once.
	kernel.ids[0].State = rdmanl.CMAddrBound
	for range 3 {
		a.CheckKernel()
	}
	o := l.snapshot(true)
	if o.Kernel.GetStatus() != pb.KernelStatus_KERNEL_MISMATCH || !strings.Contains(o.Kernel.GetDetail(), "ADDR_BOUND in the kernel, not LISTEN") {
		t.Errorf("listener's kernel field: %v", o.Kernel)
	}
	var events int
	for _, h := range o.History {
		if h.Name == "kernel mismatch" {
			events++
		}
	}
	if events != 1 || o.Status != pb.Status_LISTENING {
		t.Errorf("%d 'kernel mismatch' events (want 1), status %v (unchanged: want LISTENING)", events, o.Status)
	}
	if n := testutil.ToFloat64(a.metrics.kernel.WithLabelValues("mismatch")); n != 1 {
		t.Errorf("rdmaform_kernel_discrepancies_total{kind=mismatch} = %v, want 1", n)
	}
	if v := a.KernelView(); v.Confirmed != 0 || v.Discrepancies != 2 {
		t.Errorf("view: %d confirmed, %d discrepancies; want 0 and 2 (the listener and the leak)", v.Confirmed, v.Discrepancies)
	}

	// Both mended: confirmed again, an event says so, the leak is gone.
	kernel.ids = kernel.ids[:1]
	kernel.ids[0].State = rdmanl.CMListen
	v = a.CheckKernel()
	if len(v.Leaks) != 0 || l.snapshot(false).Kernel.GetStatus() != pb.KernelStatus_KERNEL_CONFIRMED {
		t.Errorf("after mending: leaks %v, listener %v", v.Leaks, l.snapshot(false).Kernel)
	}
}

// A discrepancy seen once is not reported: the kernel may be a moment
// ahead of the agent's events.
func TestCheckKernelWaitsBeforeReportingADiscrepancy(t *testing.T) {
	a := New(nil)
	l := heldListener(a, "listener.l", "10.77.0.1:7931", 7931)
	a.kernel.read = func() (kernelResources, error) { return kernelResources{}, nil }
	for range 3 {
		a.CheckKernel() // within kernelConfirmAfter of each other
	}
	if k := l.snapshot(false).Kernel; k != nil {
		t.Errorf("reported at once: %v", k)
	}
}

// A kernel that cannot be read (no RDMA netlink on this host) keeps the
// last comparison and says why, logged once.
func TestCheckKernelThatCannotReadSaysWhy(t *testing.T) {
	a := New(nil)
	heldListener(a, "listener.l", "10.77.0.1:7931", 7931)
	kernel := kernelResources{ids: []rdmanl.CMID{{Device: "rxe0", State: rdmanl.CMListen, PortSpace: rdmanl.PortSpaceTCP, Src: ap("10.77.0.1:7931")}}}
	var readErr error
	a.kernel.read = func() (kernelResources, error) { return kernel, readErr }
	a.CheckKernel()
	readErr = errors.New("socket(AF_NETLINK, NETLINK_RDMA): the kernel has no RDMA netlink")
	v := a.CheckKernel()
	if v.Error != "reading the kernel's RDMA resources: socket(AF_NETLINK, NETLINK_RDMA): the kernel has no RDMA netlink" || v.Confirmed != 1 {
		t.Errorf("view %v: want the error, and the last comparison's figures", v)
	}
	readErr = nil
	if v := a.CheckKernel(); v.Error != "" {
		t.Errorf("the error stays once the kernel answers: %q", v.Error)
	}
}

// A UD listener holds a QP of its own (the one its SIDR replies name): the
// kernel confirms it with the listening id, it is no leak, and its absence
// is said.
func TestKernelConfirmsAUDListenersQP(t *testing.T) {
	objs := []heldObject{{address: "listener.u", kind: pb.Kind_LISTENER, status: pb.Status_LISTENING, portSpace: rdmanl.PortSpaceUDP,
		local: ap("10.77.0.1:7474"), device: "rxe0", listenPort: 7474, qpNum: 20, qpType: "ud"}}
	for _, hasQP := range []bool{false, true} {
		k := kernelResources{
			ids: []rdmanl.CMID{{Device: "rxe0", Port: 1, Number: 3, State: rdmanl.CMListen, PortSpace: rdmanl.PortSpaceUDP,
				Src: ap("10.77.0.1:7474"), HasQP: hasQP, QPNum: 20, QPType: rdmanl.QPTypeUD}},
			qps: []rdmanl.QP{{Device: "rxe0", Port: 1, Number: 20, Type: rdmanl.QPTypeUD, State: 3}},
		}
		if !hasQP {
			k.ids[0].QPNum, k.ids[0].QPType = 0, 0
		}
		v, rest := compareWithKernel(objs, k)
		if got := v["listener.u"]; got.status != pb.KernelStatus_KERNEL_CONFIRMED || !strings.Contains(got.detail, "QP 20 RTS") {
			t.Errorf("cm_id with a QP %v: %v %q, want confirmed with QP 20 RTS", hasQP, got.status, got.detail)
		}
		if len(rest.ids)+len(rest.qps) != 0 {
			t.Errorf("cm_id with a QP %v: unaccounted for: %+v", hasQP, rest)
		}
		k.qps = nil
		if got, _ := compareWithKernel(objs, k); got["listener.u"].status != pb.KernelStatus_KERNEL_MISSING ||
			!strings.Contains(got["listener.u"].detail, "no QP 20 of this process, the listener's") {
			t.Errorf("cm_id with a QP %v, QP gone: %+v", hasQP, got["listener.u"])
		}
	}
}
