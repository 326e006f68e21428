//go:build linux && cgo && integration

package agent_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
)

// TestDeviceRemovalUnderARunningAgent deletes the device under an agent
// holding a protection domain, a listener on it with its accepted
// connections, and endpoints on it, ten with a reconnect policy and five
// without: every object reports the loss, and `rdma link delete`
// completes while the agent runs, since the agent released everything of
// the device. The device is added back and the listener made again (as a
// plan would): the endpoints with a reconnect policy are established again
// on their protection domain, allocated again; the others stay as they are.
func TestDeviceRemovalUnderARunningAgent(t *testing.T) {
	dev, netdev := testDevice(t), os.Getenv("RDMAFORM_TEST_NETDEV")
	if netdev == "" {
		t.Fatal("RDMAFORM_TEST_NETDEV is not set: this test deletes and re-adds the testbed's rxe device")
	}
	if held := uverbsHeldByThisProcess(); len(held) > 0 {
		t.Fatalf("this test process holds %s open (an in-process test went through librdmacm to the device): rdma link delete %s would wait for it to exit, so the device is not deleted", strings.Join(held, ", "), dev)
	}
	addr, port := testAddr(t), freePort()
	p := startAgent(t)
	if _, err := p.CreateProtectionDomain(ctxFor(t, time.Minute), &pb.CreateProtectionDomainRequest{
		Address: "protection_domain.pd", Token: "t", Spec: &pb.ProtectionDomainSpec{Device: dev}}); err != nil {
		t.Fatal(err)
	}
	l := echoListener(addr, port, 0)
	l.ProtectionDomain = "protection_domain.pd"
	createListener(t, p, "listener.d", l)
	onPD := func(s *pb.EndpointSpec) *pb.EndpointSpec { s.ProtectionDomain = "protection_domain.pd"; return s }
	createEndpoints(t, p, "endpoint.r", 10, func(int) *pb.EndpointSpec { return onPD(reconnectSpec(addr, port)) })
	createEndpoints(t, p, "endpoint.once", 5, func(int) *pb.EndpointSpec { return onPD(endpointSpec(addr, port)) })
	waitList(t, p, time.Minute, "15 established", func(objs []*pb.Object) bool {
		return countStatus(byKind(objs, pb.Kind_ENDPOINT, ""), pb.Status_ESTABLISHED) == 15
	})

	start := time.Now()
	deleted := make(chan error, 1)
	go func() {
		out, err := exec.Command("rdma", "link", "delete", dev).CombinedOutput()
		if err != nil {
			err = fmt.Errorf("rdma link delete %s: %v: %s", dev, err, out)
		}
		deleted <- err
	}()
	// Whatever happens, the device comes back for the tests after this
	// one: once the deletion finished (waiting for it here if this test
	// failed before it did), it is added again.
	gone, readded := false, false
	t.Cleanup(func() {
		if readded {
			return
		}
		p.terminate(t)
		if !gone {
			select {
			case <-deleted:
			case <-time.After(60 * time.Second):
				t.Errorf("rdma link delete %s still blocked 60 s after the agent exited", dev)
				return
			}
		}
		addDevice(t, dev, netdev)
	})
	select {
	case err := <-deleted:
		gone = true
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(deleteBound):
		t.Fatalf("rdma link delete %s still blocked %v after it started, with the agent running:\n%s", dev, deleteBound, p.log(t))
	}
	t.Logf("rdma link delete %s completed in %v with the agent running", dev, time.Since(start).Round(time.Millisecond))
	select {
	case <-p.exited:
		t.Fatal("the agent exited")
	default:
	}

	// An object's history keeps its last events only, and an endpoint
	// retrying its connect adds some at every try: a removal seen once in
	// a history counts, though later lists may no longer show it.
	reported := map[string]bool{}
	objs := waitList(t, p, time.Minute, "every object reporting the device loss", func(objs []*pb.Object) bool {
		all := true
		for _, o := range objs {
			if o.Kind == pb.Kind_CONNECTION {
				continue
			}
			reported[o.Address] = reported[o.Address] || hasEvent(o, "DEVICE_REMOVAL")
			all = all && reported[o.Address]
		}
		return all && len(byKind(objs, pb.Kind_ENDPOINT, "")) == 15
	})
	for _, o := range objs {
		switch {
		case o.Kind == pb.Kind_PROTECTION_DOMAIN || o.Kind == pb.Kind_LISTENER || strings.HasPrefix(o.Address, "endpoint.once"):
			if o.Status != pb.Status_ERROR || o.LastError == nil || o.LastError.ErrnoName != "ENODEV" || o.LastError.Call != "DEVICE_REMOVAL" {
				t.Errorf("%s: %s, last error %v: want the device's removal", o.Address, o.Status, o.LastError)
			}
		}
	}
	t.Logf("after rdma link delete: %s", summary(objs))

	addDevice(t, dev, netdev)
	readded = true
	if _, err := p.Delete(ctxFor(t, time.Minute), &pb.DeleteRequest{Address: "listener.d"}); err != nil {
		t.Fatal(err)
	}
	createListener(t, p, "listener.d", l)
	back := time.Now()
	objs = waitList(t, p, 2*time.Minute, "the 10 with a reconnect policy established again", func(objs []*pb.Object) bool {
		return countStatus(byKind(objs, pb.Kind_ENDPOINT, "endpoint.r["), pb.Status_ESTABLISHED) == 10
	})
	t.Logf("reconnected %v after the listener was made again: %s", time.Since(back).Round(time.Millisecond), summary(objs))
	for _, o := range objs {
		switch {
		case o.Kind == pb.Kind_PROTECTION_DOMAIN && o.Status != pb.Status_READY:
			t.Errorf("%s: %s, want ready (allocated again)", o.Address, o.Status)
		case strings.HasPrefix(o.Address, "endpoint.once") && o.Status != pb.Status_ERROR:
			t.Errorf("%s: %s, want it left in error (no reconnect policy)", o.Address, o.Status)
		}
	}
	if err := p.terminate(t); err != nil {
		t.Errorf("SIGTERM: %v", err)
	}
}

// uverbsHeldByThisProcess lists the verbs devices (/dev/infiniband/uverbsN)
// this process has open: the kernel unregisters a device such as rxe only
// once every one of them is closed.
func uverbsHeldByThisProcess() []string {
	var held []string
	fds, _ := os.ReadDir("/proc/self/fd")
	for _, fd := range fds {
		if target, err := os.Readlink("/proc/self/fd/" + fd.Name()); err == nil && strings.HasPrefix(target, "/dev/infiniband/uverbs") {
			held = append(held, target)
		}
	}
	return held
}

// deleteBound is how long `rdma link delete` may take under a running
// agent: generous, for a slow and shared VM.
const deleteBound = 20 * time.Second

func addDevice(t *testing.T, dev, netdev string) {
	if out, err := exec.Command("rdma", "link", "add", dev, "type", "rxe", "netdev", netdev).CombinedOutput(); err != nil {
		t.Errorf("re-adding %s: %v: %s", dev, err, out)
	}
	waitPortActive(t, dev)
}

func waitPortActive(t *testing.T, dev string) {
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		out, _ := exec.Command("rdma", "link", "show", dev+"/1").CombinedOutput()
		if strings.Contains(string(out), "state ACTIVE") {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("%s did not come back ACTIVE", dev)
}
