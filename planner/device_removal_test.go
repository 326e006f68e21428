package planner

import (
	"strings"
	"testing"
)

func TestDeviceBeingRemovedWarns(t *testing.T) {
	if d := deviceBeingRemoved(map[string]LiveObject{"listener.l": {Status: "listening"}, "endpoint.e": {Status: "error", Error: "rdma_connect: ECONNREFUSED"}}); len(d) != 0 {
		t.Errorf("no removal: %v", d)
	}
	live := map[string]LiveObject{"listener.l": {Status: "listening"}}
	for _, n := range []string{"endpoint.e[0]", "endpoint.e[1]", "endpoint.e[2]", "endpoint.e[3]", "listener.m"} {
		live[n] = LiveObject{Status: "error", Error: "DEVICE_REMOVAL: ENODEV"}
	}
	d := deviceBeingRemoved(live)
	if len(d) != 1 || d[0].Summary != "A device was removed" ||
		!strings.Contains(d[0].Detail, "(endpoint.e[0], endpoint.e[1], endpoint.e[2], and 2 more)") || strings.Contains(d[0].Detail, "agent stop") || !strings.Contains(d[0].Detail, "rdma link add") || !strings.Contains(d[0].Detail, "reconnect") {
		t.Errorf("got %v", d)
	}
}
