//go:build linux && cgo && integration

package agent_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
)

// TestDeviceRemovalIsReported deletes the device under an agent holding a
// listener, its accepted connections and endpoints: every object reports
// the loss; the deletion completes once the agent, stopped by SIGTERM,
// exits (Soft-RoCE cannot disassociate a live process); the device is then
// re-added for the tests that follow.
func TestDeviceRemovalIsReported(t *testing.T) {
	dev, netdev := testDevice(t), os.Getenv("RDMAFORM_TEST_NETDEV")
	if netdev == "" {
		t.Fatal("RDMAFORM_TEST_NETDEV is not set: this test deletes and re-adds the testbed's rxe device")
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
	createEndpoints(t, p, "endpoint.d", 10, func(int) *pb.EndpointSpec {
		s := endpointSpec(addr, port)
		s.ProtectionDomain = "protection_domain.pd"
		return s
	})
	waitList(t, p, time.Minute, "10 established", func(objs []*pb.Object) bool {
		return countStatus(byKind(objs, pb.Kind_ENDPOINT, ""), pb.Status_ESTABLISHED) == 10
	})

	deleted := make(chan error, 1)
	deleteDone := make(chan struct{})
	go func() {
		out, err := exec.Command("rdma", "link", "delete", dev).CombinedOutput()
		if err != nil {
			err = &exec.ExitError{}
			t.Logf("rdma link delete: %s", out)
		}
		deleted <- err
		close(deleteDone)
	}()
	t.Cleanup(func() {
		// The deletion completes only once the agent exits, whatever
		// happened above; then the device comes back for the next tests.
		p.terminate(t)
		select {
		case <-deleteDone:
		case <-time.After(60 * time.Second):
			t.Errorf("rdma link delete %s still blocked 60 s after the agent exited", dev)
		}
		if out, err := exec.Command("rdma", "link", "add", dev, "type", "rxe", "netdev", netdev).CombinedOutput(); err != nil {
			t.Errorf("re-adding %s: %v: %s", dev, err, out)
		}
		waitPortActive(t, dev)
	})
	// Accepted connections may instead end as disconnected (and go): their
	// peers, the endpoints, close their ids on DEVICE_REMOVAL.
	objs := waitList(t, p, time.Minute, "every object reporting the device loss", func(objs []*pb.Object) bool {
		for _, o := range objs {
			if o.Status != pb.Status_ERROR || o.LastError == nil || o.LastError.ErrnoName != "ENODEV" {
				return false
			}
		}
		return len(objs)-len(byKind(objs, pb.Kind_CONNECTION, "")) == 1+1+10
	})
	for _, o := range objs {
		if o.Kind != pb.Kind_PROTECTION_DOMAIN && o.LastEvent != "DEVICE_REMOVAL" {
			t.Errorf("%s: last event %q", o.Address, o.LastEvent)
		}
		// The removal is named by itself, not by the call that set the
		// object up (rdma_connect, rdma_listen).
		if o.Kind != pb.Kind_PROTECTION_DOMAIN && o.LastError.Call != "DEVICE_REMOVAL" {
			t.Errorf("%s: the error names %q, want DEVICE_REMOVAL: %s", o.Address, o.LastError.Call, o.LastError.Message)
		}
	}
	t.Logf("after rdma link delete: %s; e.g. %s", summary(objs), objs[len(objs)-1].LastError.Message)
	// A plan asks for the devices now: the device going away is an
	// answer (no device), not an error that stops the plan.
	devs, err := p.Devices(ctxFor(t, 10*time.Second), &pb.DevicesRequest{})
	if err != nil {
		t.Errorf("Devices while %s is being removed: %v (want a list without it)", dev, err)
	} else {
		for _, d := range devs.Devices {
			if d.Name == dev {
				t.Logf("Devices still lists %s while it is being removed", dev)
			}
		}
	}
	select {
	case <-deleted:
		t.Fatal("rdma link delete finished while the agent still ran: Soft-RoCE should wait for it")
	default:
	}
	start := time.Now()
	if err := p.terminate(t); err != nil {
		t.Fatalf("the agent after SIGTERM with its device gone: %v (want exit 0)", err)
	}
	select {
	case err := <-deleted:
		if err != nil {
			t.Fatal("rdma link delete failed")
		}
		t.Logf("rdma link delete finished %v after SIGTERM", time.Since(start).Round(time.Millisecond))
	case <-time.After(30 * time.Second):
		t.Fatal("rdma link delete did not finish after the agent exited")
	}
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
