package command

import (
	"testing"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
)

// status's RTT cell names the probes' mode when they are not the default
// echoed SENDs: a WRITE's or READ's round trip is not an echo's.
func TestStatusRTTNamesTheProbeMode(t *testing.T) {
	for mode, want := range map[string]string{"": "1.5ms", "send": "1.5ms", "write": "1.5ms write", "read": "1.5ms read", "rping": "1.5ms rping"} {
		o := &pb.Object{Address: "endpoint.e", Kind: pb.Kind_ENDPOINT, Status: pb.Status_ESTABLISHED,
			Probe: &pb.ProbeStats{Last: int64(1500 * time.Microsecond), Sent: 3, Received: 3, Mode: mode}}
		if got := statusRow(o)[7]; got != want {
			t.Errorf("mode %q: RTT %q, want %q", mode, got, want)
		}
	}
}
