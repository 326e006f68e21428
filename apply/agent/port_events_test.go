//go:build linux && cgo && integration

package agent_test

import (
	"os"
	"os/exec"
	"testing"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
)

// TestPortDownAndUpAreEventsOnTheObjects takes the device's netdev down and
// up under established endpoints and their accepted connections: each
// records the port's PORT_ERR and then PORT_ACTIVE, read from the device's
// async events, in the history List, status and the monitor show.
func TestPortDownAndUpAreEventsOnTheObjects(t *testing.T) {
	dev, netdev := testDevice(t), os.Getenv("RDMAFORM_TEST_NETDEV")
	if netdev == "" {
		t.Fatal("RDMAFORM_TEST_NETDEV is not set: this test takes the testbed's netdev down and up")
	}
	addr, port := testAddr(t), freePort()
	p := startAgent(t)
	createListener(t, p, "listener.p", echoListener(addr, port, 0))
	createEndpoints(t, p, "endpoint.p", 3, func(int) *pb.EndpointSpec { return endpointSpec(addr, port) })
	waitList(t, p, time.Minute, "3 established", func(objs []*pb.Object) bool {
		return countStatus(byKind(objs, pb.Kind_ENDPOINT, ""), pb.Status_ESTABLISHED) == 3 &&
			len(byKind(objs, pb.Kind_CONNECTION, "")) == 3
	})
	// Linux drops a netdev's IPv6 addresses when it goes down unless
	// keep_addr_on_down is set: keep them for the tests after this one
	// (the testbed's fd77::1), and put the setting back after.
	keep := "/proc/sys/net/ipv6/conf/" + netdev + "/keep_addr_on_down"
	if was, err := os.ReadFile(keep); err == nil {
		if err := os.WriteFile(keep, []byte("1"), 0o644); err != nil {
			t.Fatalf("keeping %s's IPv6 addresses while it is down: %v", netdev, err)
		}
		t.Cleanup(func() { os.WriteFile(keep, was, 0o644) })
	}
	setLink := func(state string) {
		if out, err := exec.Command("ip", "link", "set", netdev, state).CombinedOutput(); err != nil {
			t.Fatalf("ip link set %s %s: %v: %s", netdev, state, err, out)
		}
	}
	t.Cleanup(func() {
		exec.Command("ip", "link", "set", netdev, "up").Run()
		waitPortActive(t, dev)
	})
	withEvent := func(name string) func([]*pb.Object) bool {
		return func(objs []*pb.Object) bool {
			n := 0
			for _, o := range objs {
				if (o.Kind == pb.Kind_ENDPOINT || o.Kind == pb.Kind_CONNECTION) && hasEvent(o, name) {
					n++
				}
			}
			return n == 6
		}
	}
	setLink("down")
	waitList(t, p, time.Minute, "PORT_ERR on the 3 endpoints and 3 connections", withEvent("PORT_ERR"))
	setLink("up")
	objs := waitList(t, p, time.Minute, "PORT_ACTIVE on the 3 endpoints and 3 connections", withEvent("PORT_ACTIVE"))
	for _, o := range byKind(objs, pb.Kind_ENDPOINT, "") {
		for _, h := range o.History {
			if h.Name == "PORT_ERR" || h.Name == "PORT_ACTIVE" {
				t.Logf("%s: %s %s (%s)", o.Address, h.Name, h.Detail, h.Status)
			}
		}
	}
}
