package agent

import (
	"strings"
	"testing"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
)

// The agent checks a probe's mode as the configuration does, for clients
// that are not the CLI: an unknown mode, and modes whose RDMA READs the
// connect parameters rule out.
func TestCheckEndpointProbeMode(t *testing.T) {
	qp := &pb.QP{Type: "rc", MaxSendWr: 4, MaxRecvWr: 4, MaxSendSge: 1, MaxRecvSge: 1}
	probe := func(mode string) *pb.Probe {
		return &pb.Probe{Interval: int64(time.Second), Size: 64, Mode: mode}
	}
	for _, tc := range []struct {
		name    string
		connect *pb.Connect
		mode    string
		want    string // "" for accepted
	}{
		{"default", nil, "", ""},
		{"send", nil, "send", ""},
		{"write", nil, "write", ""},
		{"unknown", nil, "wirte", `probe.mode "wirte" is not send, write, read or rping`},
		{"read with no initiator depth", &pb.Connect{}, "read", "probe mode read needs connect.initiator_depth"},
		{"read with the device's initiator depth", &pb.Connect{AutoInitiatorDepth: true}, "read", ""},
		{"read with one", &pb.Connect{InitiatorDepth: 1}, "read", ""},
		{"rping with no responder resources", &pb.Connect{}, "rping", "probe mode rping needs connect.responder_resources"},
		{"rping with the device's responder resources", &pb.Connect{AutoResponderResources: true}, "rping", ""},
	} {
		_, err := checkEndpoint(&pb.EndpointSpec{Address: "10.77.0.2", Port: 7471, Qp: qp, Connect: tc.connect, Probe: probe(tc.mode)})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

// The rping start buffer is rping's client's, byte for byte: the ping's
// number, letters from the ping's first on, a NUL at the end.
func TestRpingPattern(t *testing.T) {
	if got, want := string(rpingPattern(0, 'A', 64)), "rdma-ping-0: ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqr\x00"; got != want {
		t.Errorf("ping 0: %q, want %q", got, want)
	}
	if got, want := string(rpingPattern(7, 'y', 20)), "rdma-ping-7: yzABCD\x00"; got != want {
		t.Errorf("ping 7: %q, want %q", got, want)
	}
	if got := rpingPattern(3, 'A', 1); string(got) != "\x00" {
		t.Errorf("1 byte: %q", got)
	}
}

// A listener's answer to the request for its probe memory parses back to
// the two regions; an echoed request or a send probe's echo does not.
func TestParseMemoryReply(t *testing.T) {
	reply := append([]byte(nil), memoryReply...)
	reply = append(reply, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0, 0, 0, 0, 0x20, 0, 0, 0, 0, 9, 0, 0, 0x10, 0)
	m, ok := parseMemoryReply(reply)
	if !ok || m.read.Addr != 0x1000 || m.write.Addr != 0x2000 || m.read.RKey != 9 || m.write.RKey != 9 || m.read.Len != 4096 {
		t.Fatalf("%+v %v", m, ok)
	}
	for _, msg := range [][]byte{memoryRequest, reply[:len(reply)-1], make([]byte, len(reply))} {
		if _, ok := parseMemoryReply(msg); ok {
			t.Errorf("%q parsed as a reply", msg)
		}
	}
}
