//go:build linux && cgo && integration

package agent_test

import (
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/rdmacm"
	"github.com/rdmaform/rdmaform/rdmacm/rdmanl"
)

// leaked keeps the id leakAnID made alive as long as the agent runs.
var leaked *rdmacm.ID

// leakAnID is the test-only hook of agentMain's -leak-id: it makes, in the
// agent's process, an id bound to addr (a port the kernel picks) that the
// agent's registry knows nothing of, as a leak would be.
func leakAnID(addr string) {
	ch, err := rdmacm.NewEventChannel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "leak-id:", err)
		os.Exit(3)
	}
	ai, err := rdmacm.GetAddrInfo(addr, "0", &rdmacm.Hints{Flags: rdmacm.Passive | rdmacm.NumericHost, PortSpace: rdmacm.PSTCP, QPType: rdmacm.RC})
	if err == nil {
		leaked, err = rdmacm.CreateEP(ai, nil, nil, ch)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "leak-id:", err)
		os.Exit(3)
	}
}

// The agent's view of the kernel agrees with "rdma resource show cm_id":
// every listener, endpoint and connection it holds is confirmed, with the
// addresses and QP numbers iproute2 lists for the agent's process; and an
// id the agent's process made outside its registry is reported as a leak
// (the view's leaks, which status -json shows; the metric; the log).
func TestKernelViewAgreesWithRdmaResourceAndFindsALeak(t *testing.T) {
	addr := testAddr(t)
	p := startAgent(t, "-leak-id="+addr, "-metrics=127.0.0.1:0")
	port := freePort()
	createListener(t, p, "listener.k", echoListener(addr, port, 0))
	createEndpoints(t, p, "endpoint.k", 2, func(int) *pb.EndpointSpec { return endpointSpec(addr, port) })
	waitList(t, p, 2*time.Minute, "2 endpoints and 2 connections established", func(objs []*pb.Object) bool {
		return countStatus(byKind(objs, pb.Kind_ENDPOINT, "endpoint.k"), pb.Status_ESTABLISHED) == 2 &&
			countStatus(byKind(objs, pb.Kind_CONNECTION, "listener.k"), pb.Status_ESTABLISHED) == 2
	})

	// A leak is reported once two checks 5 s apart found it: ask until then.
	var view *pb.KernelView
	var objs []*pb.Object
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var err error
		if view, err = p.CheckKernel(ctxFor(t, time.Minute), &pb.CheckKernelRequest{}); err != nil {
			t.Fatalf("CheckKernel: %v", err)
		}
		objs = list(t, p)
		if len(view.Leaks) > 0 && view.Confirmed == 5 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 2 minutes: view %v; objects %s", view, kernelVerdicts(objs))
		}
		time.Sleep(500 * time.Millisecond)
	}
	if view.Error != "" || len(view.Leaks) != 1 || view.Discrepancies != 1 {
		t.Fatalf("view: %v; want one leak and no other discrepancy", view)
	}
	leak := view.Leaks[0]
	leakAddr, err := netip.ParseAddrPort(leak.LocalAddr)
	if leak.Kind != "cm_id" || leak.State != "ADDR_BOUND" || err != nil || leakAddr.Addr().String() != addr || leak.Pid != uint32(p.pid()) || leak.Command == "" {
		t.Errorf("leak %v: want the agent's (pid %d) cm_id bound to %s", leak, p.pid(), addr)
	}

	// iproute2's listing of the agent's process: the same ids.
	byIdn := map[string]string{}
	for _, line := range cmIDs(t) {
		if tgid, _, ok := rdmanl.ProcessOf(parseU32(rdmaField(line, "pid"))); ok && tgid == uint32(p.pid()) {
			byIdn[rdmaField(line, "cm-idn")] = line
		}
	}
	if len(byIdn) != 6 {
		t.Errorf("rdma resource show cm_id lists %d ids of the agent's process, want 6 (a listener, 2 endpoints, 2 connections, the leak): %v", len(byIdn), byIdn)
	}
	seen := map[string]bool{}
	for _, o := range objs {
		if o.Kind == pb.Kind_PROTECTION_DOMAIN {
			continue
		}
		k, f := o.GetKernel(), o.GetFacts()
		if k.GetStatus() != pb.KernelStatus_KERNEL_CONFIRMED {
			t.Errorf("%s: kernel %v", o.Address, k)
			continue
		}
		want := []string{"src-addr " + f.LocalAddr}
		if o.Kind == pb.Kind_LISTENER {
			want = append(want, "state LISTEN")
		} else {
			want = append(want, "state CONNECT", fmt.Sprintf("lqpn %d ", f.QpNum), "dst-addr "+f.RemoteAddr)
		}
		found := false
		for idn, line := range byIdn {
			if containsAll(line+" ", want) && strings.Contains(k.Detail, "cm_id "+idn+" ") {
				found, seen[idn] = true, true
			}
		}
		if !found {
			t.Errorf("%s (kernel: %q): no line of rdma resource show cm_id has %q with its cm-idn: %v", o.Address, k.Detail, want, byIdn)
		}
	}
	for idn, line := range byIdn {
		if !seen[idn] && !(containsAll(line+" ", []string{"state ADDR_BOUND", "src-addr " + leak.LocalAddr + " "}) && idn == strconv.Itoa(int(leak.Number))) {
			t.Errorf("rdma resource show cm_id lists an id the agent neither confirms nor reports as a leak: %s", line)
		}
	}

	// The metric counted the leak once, however many checks found it.
	info, err := p.Info(ctxFor(t, time.Minute), &pb.InfoRequest{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := (&http.Client{Timeout: time.Minute}).Get("http://" + info.Metrics + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if !strings.Contains(string(body), `rdmaform_kernel_discrepancies_total{kind="leak"} 1`+"\n") {
		t.Errorf("metrics lack rdmaform_kernel_discrepancies_total{kind=\"leak\"} 1:\n%s", grepLines(string(body), "kernel"))
	}
	// List carries the view (status and status -json show it), and the log
	// tells the leak.
	if lr, err := p.List(ctxFor(t, time.Minute), &pb.ListRequest{Full: true}); err != nil || len(lr.GetAgent().GetKernel().GetLeaks()) != 1 {
		t.Errorf("List's agent.kernel: %v (%v)", lr.GetAgent().GetKernel(), err)
	}
	if log := p.log(t); !strings.Contains(log, "a leak") || !strings.Contains(log, leak.LocalAddr) {
		t.Errorf("the log does not tell the leak:\n%s", grepLines(log, "kernel"))
	}
}

func kernelVerdicts(objs []*pb.Object) string {
	var b strings.Builder
	for _, o := range objs {
		fmt.Fprintf(&b, "\n  %s %s: %v", o.Address, o.Status, o.GetKernel())
	}
	return b.String()
}

func rdmaField(line, key string) string {
	f := strings.Fields(line)
	for i := 0; i+1 < len(f); i++ {
		if f[i] == key {
			return f[i+1]
		}
	}
	return ""
}

func parseU32(s string) uint32 {
	n, _ := strconv.ParseUint(s, 10, 32)
	return uint32(n)
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// Datagram (UD) endpoints and their listener are confirmed too, and the
// ids of the requests the listener answered (gone at once) are no leaks.
func TestKernelViewConfirmsUDObjects(t *testing.T) {
	p := startAgent(t)
	addr, port := testAddr(t), freePort()
	ud := &pb.QP{Type: "ud", MaxSendWr: 4, MaxRecvWr: 4, MaxSendSge: 1, MaxRecvSge: 1}
	createListener(t, p, "listener.u", &pb.ListenerSpec{Address: addr, Port: port, PortSpace: "udp", Qp: ud, Accept: &pb.Accept{}})
	createEndpoints(t, p, "endpoint.u", 2, func(int) *pb.EndpointSpec {
		return &pb.EndpointSpec{Address: addr, Port: port, PortSpace: "udp", Qp: ud}
	})
	waitList(t, p, time.Minute, "two UD endpoints established", func(objs []*pb.Object) bool {
		return countStatus(byKind(objs, pb.Kind_ENDPOINT, ""), pb.Status_ESTABLISHED) == 2
	})
	// Two checks 5 s apart, so that a leak would be reported.
	var view *pb.KernelView
	first := time.Now()
	for deadline := first.Add(2 * time.Minute); ; time.Sleep(500 * time.Millisecond) {
		var err error
		if view, err = p.CheckKernel(ctxFor(t, time.Minute), &pb.CheckKernelRequest{}); err != nil {
			t.Fatal(err)
		}
		if view.Confirmed == 3 && time.Since(first) > 6*time.Second || time.Now().After(deadline) {
			break
		}
	}
	if view.Confirmed != 3 || view.Discrepancies != 0 || view.Error != "" {
		t.Errorf("view %v; objects %s", view, kernelVerdicts(list(t, p)))
	}
}
