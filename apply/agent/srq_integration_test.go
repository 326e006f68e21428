//go:build linux && cgo && integration

package agent_test

import (
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
)

// kernelSRQs are the kernel's SRQs (rdma resource show srq): each one's
// line, and the QPs on it by number. In the test's VM only the agent
// makes any. (Its pid there is not the one the test started, and
// iproute2 6.1 prints the QP list again as comm: the lines are not
// filtered by process.)
func kernelSRQs(t *testing.T) (lines []string, qps []map[uint32]bool, raw string) {
	t.Helper()
	out, err := exec.Command("rdma", "resource", "show", "srq").CombinedOutput()
	if err != nil {
		t.Fatalf("rdma resource show srq: %v\n%s", err, out)
	}
	raw = string(out)
	for _, line := range strings.Split(string(out), "\n") {
		if !strings.Contains(line, "srqn ") {
			continue
		}
		on := map[uint32]bool{}
		if m := regexp.MustCompile(`lqpn ([0-9,-]+)`).FindStringSubmatch(line); m != nil {
			for _, part := range strings.Split(m[1], ",") {
				lo, hi, isRange := strings.Cut(part, "-")
				a, _ := strconv.Atoi(lo)
				b := a
				if isRange {
					b, _ = strconv.Atoi(hi)
				}
				for n := a; n <= b; n++ {
					on[uint32(n)] = true
				}
			}
		}
		lines, qps = append(lines, line), append(qps, on)
	}
	return lines, qps, raw
}

// A listener with an srq block makes one SRQ, and every connection it
// accepts receives from it: 20 endpoints probe through it with no loss,
// the kernel shows one SRQ with the 20 connections' QPs on it, status
// shows its size and the receives posted, and deleting the listener
// under its live connections leaves no SRQ.
func TestListenerSRQServesEveryConnection(t *testing.T) {
	const n, wr = 20, 64
	p := startAgent(t)
	addr, port := testAddr(t), freePort()
	spec := echoListener(addr, port, 0)
	spec.Qp = &pb.QP{Type: "rc", MaxSendWr: 16, MaxRecvWr: 16, MaxSendSge: 1, MaxRecvSge: 1}
	spec.Srq = &pb.SRQ{MaxRecvWr: wr, MaxRecvSge: 1}
	l := createListener(t, p, "listener.srq", spec)
	if l.Srq == nil || l.Srq.MaxRecvWr < wr || l.Srq.Posted != wr {
		t.Fatalf("the listener's status shows SRQ %v, want one of at least %d receives, all %d posted", l.Srq, wr, wr)
	}
	ep := endpointSpec(addr, port)
	ep.Qp = &pb.QP{Type: "rc", MaxSendWr: 16, MaxRecvWr: 16, MaxSendSge: 1, MaxRecvSge: 1}
	// A generous timeout: under TCG a burst of connects can stall a round
	// trip for seconds; a probe lost here is one never answered.
	ep.Probe = &pb.Probe{Interval: int64(20 * time.Millisecond), Size: 64, Timeout: int64(15 * time.Second)}
	createEndpoints(t, p, "endpoint.s", n, func(int) *pb.EndpointSpec { return ep })
	objs := waitList(t, p, 3*time.Minute, "20 probes answered on every endpoint", func(objs []*pb.Object) bool {
		eps := byKind(objs, pb.Kind_ENDPOINT, "endpoint.s[")
		ok := len(eps) == n
		for _, o := range eps {
			ok = ok && o.Status == pb.Status_ESTABLISHED && o.Probe != nil && o.Probe.Sent-o.Probe.Lost >= 20
		}
		return ok
	})
	var sent, lost uint64
	for _, o := range byKind(objs, pb.Kind_ENDPOINT, "endpoint.s[") {
		sent, lost = sent+o.Probe.Sent, lost+o.Probe.Lost
	}
	if lost != 0 {
		t.Errorf("%d of %d probes lost through the SRQ", lost, sent)
	}
	conns := byKind(objs, pb.Kind_CONNECTION, "listener.srq/")
	if len(conns) != n {
		t.Fatalf("%d connections, want %d: %s", len(conns), n, summary(objs))
	}
	lines, qps, raw := kernelSRQs(t)
	if len(lines) != 1 {
		t.Fatalf("the kernel shows %d SRQs, want exactly 1:\n%s", len(lines), raw)
	}
	for _, c := range conns {
		if c.Facts == nil || !qps[0][c.Facts.QpNum] {
			t.Errorf("%s: its QP %v is not on the listener's SRQ: %s", c.Address, c.Facts.GetQpNum(), lines[0])
		}
	}
	if len(qps[0]) != n {
		t.Errorf("the SRQ serves %d QPs, want the %d connections': %s", len(qps[0]), n, lines[0])
	}
	for _, o := range objs {
		if o.Address == "listener.srq" {
			// Receives come back as their echoes are sent: between probes
			// nearly all are posted.
			if o.Srq == nil || o.Srq.Posted == 0 || o.Srq.Posted > o.Srq.MaxRecvWr || o.Srq.Device != testDevice(t) {
				t.Errorf("the listener's status shows SRQ %v", o.Srq)
			}
			t.Logf("status: SRQ %v; %d probes, none lost; kernel: %s", o.Srq, sent, lines[0])
		}
	}

	// The connections gone, every slot is posted again: none leaked by
	// the echo or left behind by a connection's end.
	for i := 0; i < n; i++ {
		if _, err := p.Delete(ctxFor(t, time.Minute), &pb.DeleteRequest{Address: fmt.Sprintf("endpoint.s[%d]", i)}); err != nil {
			t.Fatalf("Delete endpoint.s[%d]: %v", i, err)
		}
	}
	waitList(t, p, time.Minute, "no connection left, every receive posted again", func(objs []*pb.Object) bool {
		for _, o := range objs {
			if o.Address == "listener.srq" {
				return o.Connections == 0 && o.Srq != nil && o.Srq.Posted == wr
			}
		}
		return false
	})
	// Deleting the listener under live connections destroys their QPs,
	// then the SRQ.
	ep.Probe = nil
	createEndpoints(t, p, "endpoint.live", 5, func(int) *pb.EndpointSpec { return ep })
	waitList(t, p, time.Minute, "5 connections", func(objs []*pb.Object) bool {
		return len(byKind(objs, pb.Kind_CONNECTION, "listener.srq/")) == 5
	})
	if _, err := p.Delete(ctxFor(t, time.Minute), &pb.DeleteRequest{Address: "listener.srq"}); err != nil {
		t.Fatalf("Delete listener.srq: %v", err)
	}
	if lines, _, raw := kernelSRQs(t); len(lines) != 0 {
		t.Errorf("after the listener's delete the kernel still shows its SRQ:\n%s", raw)
	}
	if log := p.log(t); strings.Contains(log, "ibv_destroy_srq") {
		t.Errorf("the agent logged a failed SRQ destruction:\n%s", log)
	}
}
