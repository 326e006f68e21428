//go:build linux && cgo && integration

package agent_test

import (
	"os/exec"
	"regexp"
	"strconv"
	"testing"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
)

// kernelQPStates is the kernel's state of each QP (rdma resource show
// qp), by number.
func kernelQPStates(t *testing.T) map[uint32]string {
	t.Helper()
	out, err := exec.Command("rdma", "resource", "show", "qp").CombinedOutput()
	if err != nil {
		t.Fatalf("rdma resource show qp: %v\n%s", err, out)
	}
	states := map[uint32]string{}
	for _, m := range regexp.MustCompile(`lqpn (\d+) .*?state (\w+)`).FindAllStringSubmatch(string(out), -1) {
		n, _ := strconv.Atoi(m[1])
		states[uint32(n)] = m[2]
	}
	return states
}

// A probe timeout below the agents' round trip loses probes, whose echoes
// come late. A late echo must not leave the next probe's echo without a
// receive (an RNR NAK): with connect.rnr_retry_count below 7 that put the
// echoing QP in the error state while both sides went on reporting the
// connection established. Whatever happens to a QP, the agent never
// reports established a connection whose QP the kernel has in error.
func TestTightProbeTimeoutKeepsTheQPsAlive(t *testing.T) {
	p := startAgent(t)
	addr, port := testAddr(t), freePort()
	createListener(t, p, "listener.echo", echoListener(addr, port, 0))
	spec := endpointSpec(addr, port)
	spec.Qp = &pb.QP{Type: "rc", MaxSendWr: 16, MaxRecvWr: 16, MaxSendSge: 1, MaxRecvSge: 1}
	spec.Connect = &pb.Connect{RetryCount: 7, RnrRetryCount: 3}
	spec.Probe = &pb.Probe{Interval: int64(50 * time.Millisecond), Size: 64, Timeout: int64(time.Millisecond)}
	createEndpoints(t, p, "endpoint.tight", 4, func(int) *pb.EndpointSpec { return spec })
	objs := waitList(t, p, time.Minute, "150 probes sent on every endpoint, or one endpoint down", func(objs []*pb.Object) bool {
		eps := byKind(objs, pb.Kind_ENDPOINT, "endpoint.tight[")
		done := len(eps) == 4
		for _, o := range eps {
			switch o.Status {
			case pb.Status_DISCONNECTED, pb.Status_ERROR, pb.Status_REJECTED, pb.Status_RECONNECTING:
				return true
			}
			done = done && o.Probe != nil && o.Probe.Sent >= 150
		}
		return done
	})
	states := kernelQPStates(t)
	var lost, sent uint64
	for _, o := range objs {
		if o.Probe != nil {
			lost, sent = lost+o.Probe.Lost, sent+o.Probe.Sent
		}
		if o.Facts == nil || o.Facts.QpNum == 0 || (o.Kind != pb.Kind_ENDPOINT && o.Kind != pb.Kind_CONNECTION) {
			continue
		}
		if o.Kind == pb.Kind_ENDPOINT && o.Status != pb.Status_ESTABLISHED && o.Status != pb.Status_DEGRADED {
			t.Errorf("%s went %s: %v", o.Address, o.Status, o.LastError)
		}
		st := states[o.Facts.QpNum]
		if st == "ERR" && (o.Status == pb.Status_ESTABLISHED || o.Status == pb.Status_DEGRADED) {
			t.Errorf("%s is %s, but the kernel has its QP %d in ERR (last error %v)", o.Address, o.Status, o.Facts.QpNum, o.LastError)
		}
		if st != "RTS" {
			t.Errorf("%s: QP %d is %q in the kernel (agent: %s, %v)", o.Address, o.Facts.QpNum, st, o.Status, o.LastError)
		}
	}
	t.Logf("%d of %d probes lost with a 1 ms timeout; kernel QP states %v", lost, sent, states)
	if lost == 0 {
		t.Fatalf("no probe lost with a 1 ms timeout: the test did not make late echoes")
	}
}
