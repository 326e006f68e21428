package command

import (
	"bytes"
	"strings"
	"testing"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
)

func TestStatusShowsTheKernelsDiscrepancies(t *testing.T) {
	list := &pb.ListResponse{
		Objects: []*pb.Object{
			{Address: "listener.l", Kind: pb.Kind_LISTENER, Status: pb.Status_LISTENING,
				Kernel: &pb.KernelCheck{Status: pb.KernelStatus_KERNEL_CONFIRMED, Detail: "LISTEN: cm_id 0 on rxe0"}},
			{Address: "endpoint.e", Kind: pb.Kind_ENDPOINT, Status: pb.Status_ESTABLISHED,
				Kernel: &pb.KernelCheck{Status: pb.KernelStatus_KERNEL_MISMATCH, Detail: "QP 17 is ERR in the kernel, not RTS as an established endpoint's"}},
		},
		Agent: &pb.InfoResponse{Kernel: &pb.KernelView{CheckedAt: 1, Confirmed: 1, Discrepancies: 2, Leaks: []*pb.KernelResource{
			{Kind: "cm_id", Device: "rxe0", Port: 1, Number: 9, LocalAddr: "10.77.0.1:45000", State: "ADDR_BOUND", Pid: 151, Command: "rdmaform"},
		}}},
	}
	var b bytes.Buffer
	writeKernelView(&b, list)
	want := `
Kernel's view (rdma resource): 1 object confirmed, 2 discrepancies
  endpoint.e  mismatch: QP 17 is ERR in the kernel, not RTS as an established endpoint's
  leak        cm_id 9 on rxe0/1 10.77.0.1:45000, ADDR_BOUND, held by rdmaform (pid 151) but by no object of the agent's
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}

	// All confirmed: one line. No check yet: nothing. No RDMA netlink: why.
	list.Objects, list.Agent.Kernel.Leaks = list.Objects[:1], nil
	b.Reset()
	writeKernelView(&b, list)
	if b.String() != "\nKernel's view (rdma resource): 1 object confirmed, 0 discrepancies\n" {
		t.Errorf("all confirmed: %q", b.String())
	}
	b.Reset()
	writeKernelView(&b, &pb.ListResponse{Agent: &pb.InfoResponse{}})
	if b.Len() != 0 {
		t.Errorf("before any check: %q", b.String())
	}
	writeKernelView(&b, &pb.ListResponse{Agent: &pb.InfoResponse{Kernel: &pb.KernelView{Error: "reading the kernel's RDMA resources: socket(AF_NETLINK, NETLINK_RDMA): the kernel has no RDMA netlink"}}})
	if !strings.Contains(b.String(), "Kernel's view: reading the kernel's RDMA resources: socket(AF_NETLINK, NETLINK_RDMA)") {
		t.Errorf("no netlink: %q", b.String())
	}
}

// status -json carries each object's verdict and the view's leaks.
func TestStatusJSONCarriesTheKernelsView(t *testing.T) {
	list := &pb.ListResponse{
		Objects: []*pb.Object{{Address: "listener.l", Kind: pb.Kind_LISTENER, Status: pb.Status_LISTENING,
			Kernel: &pb.KernelCheck{Status: pb.KernelStatus_KERNEL_CONFIRMED, Detail: "LISTEN: cm_id 0 on rxe0"}}},
		Agent: &pb.InfoResponse{Kernel: &pb.KernelView{CheckedAt: 1, Confirmed: 1, Leaks: []*pb.KernelResource{{Kind: "cm_id", Number: 9, State: "ADDR_BOUND"}}}},
	}
	b, err := stableJSON(list)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"kernel": {
        "status": "KERNEL_CONFIRMED",
        "detail": "LISTEN: cm_id 0 on rxe0"`, `"leaks": [`, `"state": "ADDR_BOUND"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("status -json lacks %s:\n%s", want, b)
		}
	}
}

// The monitor's detail gets the kernel's verdict in words.
func TestMonitorObjectCarriesTheKernelsVerdict(t *testing.T) {
	o := monitorObject(&pb.Object{Address: "endpoint.e", Kind: pb.Kind_ENDPOINT,
		Kernel: &pb.KernelCheck{Status: pb.KernelStatus_KERNEL_MISSING, Detail: "the kernel tracks no QP 17 of this process"}})
	if o.Kernel != "missing: the kernel tracks no QP 17 of this process" {
		t.Errorf("Kernel = %q", o.Kernel)
	}
	if o := monitorObject(&pb.Object{Address: "endpoint.e"}); o.Kernel != "" {
		t.Errorf("unchecked: Kernel = %q", o.Kernel)
	}
}
