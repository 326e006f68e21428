//go:build linux && cgo && integration

package agent_test

import (
	"bytes"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
)

// probing is an RC endpoint toward addr:port probing in mode, every 20 ms,
// with a timeout no loaded VM reaches.
func probing(addr string, port uint32, mode string, size uint32) *pb.EndpointSpec {
	spec := endpointSpec(addr, port)
	spec.Qp = &pb.QP{Type: "rc", MaxSendWr: 16, MaxRecvWr: 16, MaxSendSge: 1, MaxRecvSge: 1}
	// Connection parameters as the configuration leaves them: what the
	// device allows, so RDMA READs go.
	spec.Connect = &pb.Connect{RetryCount: 7, RnrRetryCount: 7, AutoResponderResources: true, AutoInitiatorDepth: true}
	spec.Probe = &pb.Probe{Interval: int64(20 * time.Millisecond), Size: size, Timeout: int64(10 * time.Second), Mode: mode}
	return spec
}

// object is the object named address in objs, or nil.
func object(objs []*pb.Object, address string) *pb.Object {
	for _, o := range objs {
		if o.Address == address {
			return o
		}
	}
	return nil
}

// answered waits until the endpoint named address has had n more probes
// of mode answered than from, or a probe lost, and returns it.
func answered(t *testing.T, p *agentProc, address, mode string, from, n uint64) *pb.Object {
	t.Helper()
	var o *pb.Object
	waitList(t, p, 2*time.Minute, fmt.Sprintf("%d more %s probes answered on %s, or one lost", n, mode, address), func(objs []*pb.Object) bool {
		o = object(objs, address)
		if o == nil || o.Probe == nil {
			return false
		}
		return o.Probe.Lost > 0 || o.Probe.Mode == mode && o.Probe.Received >= from+n ||
			o.Status != pb.Status_ESTABLISHED && o.Status != pb.Status_DEGRADED
	})
	if o.Status != pb.Status_ESTABLISHED || o.Probe.Lost != 0 || o.Probe.Mode != mode {
		t.Fatalf("%s: %s, probes %v, last error %v; want established, mode %s, none lost", address, o.Status, o.Probe, o.LastError, mode)
	}
	return o
}

// Write and read probes toward an echoing listener: RDMA WRITEs and READs
// of the listener's probe memory, with round trips and no loss. A read
// probe checks the bytes it read against the pattern the listener keeps
// there (and zeroes its buffer before each read), so a probe answered is
// data moved. The mode changes in place, on the same QP, from send to
// write to read and back.
func TestOneSidedProbesTowardAnEchoListener(t *testing.T) {
	p := startAgent(t)
	addr, port := testAddr(t), freePort()
	ls := echoListener(addr, port, 0)
	ls.Accept.AutoResponderResources, ls.Accept.AutoInitiatorDepth = true, true
	createListener(t, p, "listener.echo", ls)
	for _, c := range []struct {
		name, mode string
		size       uint32
	}{{"endpoint.write", "write", 64}, {"endpoint.read", "read", 4096}, {"endpoint.read_small", "read", 1}} {
		if _, err := p.CreateEndpoint(ctxFor(t, time.Minute), &pb.CreateEndpointRequest{Address: c.name, Token: "tok", Spec: probing(addr, port, c.mode, c.size)}); err != nil {
			t.Fatalf("CreateEndpoint %s: %v", c.name, err)
		}
		o := answered(t, p, c.name, c.mode, 0, 30)
		t.Logf("%s: %d %s probes of %d bytes, round trip min %v mean %v max %v", c.name, o.Probe.Received, c.mode, c.size,
			time.Duration(o.Probe.Min), time.Duration(o.Probe.Mean), time.Duration(o.Probe.Max))
	}

	const name = "endpoint.switch"
	if _, err := p.CreateEndpoint(ctxFor(t, time.Minute), &pb.CreateEndpointRequest{Address: name, Token: "tok", Spec: probing(addr, port, "send", 64)}); err != nil {
		t.Fatalf("CreateEndpoint %s: %v", name, err)
	}
	o := answered(t, p, name, "send", 0, 20)
	qp := o.Facts.GetQpNum()
	for _, mode := range []string{"write", "read", "send"} {
		if _, err := p.Update(ctxFor(t, time.Minute), &pb.UpdateRequest{Address: name, SetProbe: true, Probe: probing(addr, port, mode, 64).Probe}); err != nil {
			t.Fatalf("Update %s to mode %s: %v", name, mode, err)
		}
		// Probes counted before the mode's first shows are the old mode's.
		o = answered(t, p, name, mode, o.Probe.Received, 20)
		if o.Facts.GetQpNum() != qp {
			t.Fatalf("mode %s: QP %d, want %d: the change was not in place", mode, o.Facts.GetQpNum(), qp)
		}
	}
}

// A read probe toward a listener whose accept allows no RDMA READ
// (responder_resources = 0) is lost at once with why, rather than waiting
// for ever in the send queue.
func TestReadProbeTowardAListenerThatAllowsNoRead(t *testing.T) {
	p := startAgent(t)
	addr, port := testAddr(t), freePort()
	createListener(t, p, "listener.noread", echoListener(addr, port, 0)) // responder_resources 0
	const name = "endpoint.read"
	if _, err := p.CreateEndpoint(ctxFor(t, time.Minute), &pb.CreateEndpointRequest{Address: name, Token: "tok", Spec: probing(addr, port, "read", 64)}); err != nil {
		t.Fatal(err)
	}
	var o *pb.Object
	waitList(t, p, 2*time.Minute, "3 read probes lost", func(objs []*pb.Object) bool {
		o = object(objs, name)
		return o != nil && o.Probe != nil && o.Probe.Lost >= 3
	})
	want := "ibv_query_qp: the connection allows this side no RDMA READ (max_rd_atomic is 0)"
	if e := o.LastError; o.Status != pb.Status_DEGRADED || o.Probe.Received != 0 || !strings.HasPrefix(e.GetMessage(), want) {
		t.Fatalf("%s, probes %v, last error %v; want degraded, none answered, %q", o.Status, o.Probe, e, want)
	}
}

// An endpoint in mode rping verifies a host running rdma-core's own
// `rping -s`, with no rdmaform there: pings answered, none lost, and the
// server shows the ping data it RDMA READ from the endpoint.
func TestRpingProbeTowardRpingServer(t *testing.T) {
	p := startAgent(t)
	addr, port := testAddr(t), freePort()
	var out lockedBuffer
	rping := exec.Command("rping", "-s", "-v", "-a", addr, "-p", strconv.Itoa(int(port)))
	rping.Stdout, rping.Stderr = &out, &out
	if err := rping.Start(); err != nil {
		t.Fatalf("rping -s (rdmacm-utils): %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- rping.Wait() }()
	t.Cleanup(func() {
		rping.Process.Kill()
		<-exited
	})
	for deadline := time.Now().Add(time.Minute); len(linesWith(linesWith(cmIDs(t), fmt.Sprintf("src-addr %s:%d ", addr, port)), "LISTEN")) == 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("rping does not listen on %d: %s", port, out.String())
		}
	}
	const name = "endpoint.rping"
	if _, err := p.CreateEndpoint(ctxFor(t, time.Minute), &pb.CreateEndpointRequest{Address: name, Token: "tok", Spec: probing(addr, port, "rping", 64)}); err != nil {
		t.Fatalf("CreateEndpoint %s: %v", name, err)
	}
	o := answered(t, p, name, "rping", 0, 30)
	t.Logf("%d pings with rping -s, round trip min %v mean %v max %v", o.Probe.Received,
		time.Duration(o.Probe.Min), time.Duration(o.Probe.Mean), time.Duration(o.Probe.Max))
	// The server prints each ping's data it read: the endpoint's buffer,
	// as rping's own client fills it. Its output, to a pipe, comes at its
	// exit, which the endpoint's disconnect brings (a server serves one
	// connection).
	if _, err := p.Delete(ctxFor(t, time.Minute), &pb.DeleteRequest{Address: name}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		exited <- err // for the cleanup
		if err != nil {
			t.Errorf("rping -s: %v", err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatalf("rping -s did not end after the endpoint's disconnect:\n%s", out.String())
	}
	for _, want := range []string{"server ping data: rdma-ping-0: ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqr\n",
		"server ping data: rdma-ping-1: BCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrs\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("rping -s -v printed no %q:\n%s", want, out.String())
		}
	}
}

// An rping endpoint toward a port where nothing listens fails its create
// with the call that failed and why.
func TestRpingProbeTowardNothing(t *testing.T) {
	p := startAgent(t)
	addr, port := testAddr(t), freePort()
	if _, err := p.CreateEndpoint(ctxFor(t, time.Minute), &pb.CreateEndpointRequest{Address: "endpoint.nothing", Token: "tok", Spec: probing(addr, port, "rping", 64)}); err != nil {
		t.Fatal(err)
	}
	var o *pb.Object
	waitList(t, p, 2*time.Minute, "endpoint.nothing's connect refused", func(objs []*pb.Object) bool {
		o = object(objs, "endpoint.nothing")
		return o != nil && o.LastError != nil
	})
	e := o.GetLastError()
	if o.Status != pb.Status_REJECTED || e.GetCall() != "rdma_connect" || e.GetErrnoName() != "ECONNREFUSED" {
		t.Fatalf("status %s, last error %v; want REJECTED by rdma_connect, ECONNREFUSED", o.Status, e)
	}
	t.Logf("toward %s:%d where nothing listens: %s", addr, port, e.GetMessage())
}

// lockedBuffer is a bytes.Buffer a process writes while the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
