package client

import (
	"testing"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
)

// The monitor shows a reconnecting endpoint, or one whose connection
// ended for good, without the QP and local port of the connection that
// ended; an established one keeps them.
func TestMonitorObjectLeavesOutAnEndedConnection(t *testing.T) {
	facts := &pb.Facts{LocalAddr: "10.77.0.1:39851", RemoteAddr: "10.77.0.1:7570", Device: "rxe0", Port: 1, QpNum: 31, QpType: "rc", QpState: "RTS"}
	up := MonitorObject(&pb.Object{Address: "endpoint.up", Kind: pb.Kind_ENDPOINT, Status: pb.Status_ESTABLISHED, Facts: facts})
	if up.QPNum != 31 || up.LocalAddr != "10.77.0.1:39851" {
		t.Errorf("established: QP %d, local %q", up.QPNum, up.LocalAddr)
	}
	re := MonitorObject(&pb.Object{Address: "endpoint.re", Kind: pb.Kind_ENDPOINT, Status: pb.Status_RECONNECTING, Facts: facts})
	if re.QPNum != 0 || re.LocalAddr != "" || re.RemoteAddr != "10.77.0.1:7570" || re.Device != "rxe0" {
		t.Errorf("reconnecting: QP %d, local %q, remote %q, device %q", re.QPNum, re.LocalAddr, re.RemoteAddr, re.Device)
	}
	probe := &pb.ProbeStats{Last: 2100000, Sent: 40}
	for _, st := range []pb.Status{pb.Status_RECONNECTING, pb.Status_DISCONNECTED, pb.Status_ERROR, pb.Status_REJECTED} {
		gone := MonitorObject(&pb.Object{Address: "endpoint.gone", Kind: pb.Kind_ENDPOINT, Status: st, Facts: facts, Probe: probe})
		if gone.QPNum != 0 || gone.LocalAddr != "" || gone.Device != "rxe0" || !gone.Probe.Ended {
			t.Errorf("%s: QP %d, local %q, device %q, probes of an ended connection %v", st, gone.QPNum, gone.LocalAddr, gone.Device, gone.Probe.Ended)
		}
	}
	if up := MonitorObject(&pb.Object{Address: "endpoint.up", Kind: pb.Kind_ENDPOINT, Status: pb.Status_ESTABLISHED, Facts: facts, Probe: probe}); up.Probe.Ended {
		t.Error("established: its probes read as an ended connection's")
	}
	if facts.QpNum != 31 || facts.LocalAddr == "" {
		t.Errorf("the agent's facts were changed: %v", facts)
	}
}

// An IPv6 address and its port read as one, bracketed, in the monitor's
// settings.
func TestMonitorSettingsBracketAnIPv6Address(t *testing.T) {
	o := &pb.Object{Address: "endpoint.v6", Kind: pb.Kind_ENDPOINT, Spec: &pb.Object_Endpoint{Endpoint: &pb.EndpointSpec{Address: "fd00:77::1", Port: 7471}}}
	for _, s := range settings(o) {
		if s.Key == "address" {
			if s.Value != "[fd00:77::1]:7471" {
				t.Errorf("address %q, want [fd00:77::1]:7471", s.Value)
			}
			return
		}
	}
	t.Error("no address in the settings")
}
