package agent

import (
	"strings"
	"testing"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/rdmacm"
)

func TestOptionsOfRefusesWhatTheKernelWould(t *testing.T) {
	u := func(v uint32) *uint32 { return &v }
	for _, tc := range []struct {
		o    *pb.CMOptions
		t    rdmacm.QPType
		want string
	}{
		{&pb.CMOptions{TypeOfService: u(256)}, rdmacm.RC, "options.type_of_service = 256"},
		{&pb.CMOptions{AckTimeout: u(32)}, rdmacm.RC, "at most 31"},
		{&pb.CMOptions{AckTimeout: u(14)}, rdmacm.UD, "needs an RC QP"},
	} {
		if _, err := optionsOf(tc.o, tc.t); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v on %s: %v, want %q", tc.o, tc.t, err, tc.want)
		}
	}
	o, err := optionsOf(&pb.CMOptions{TypeOfService: u(106), AckTimeout: u(14)}, rdmacm.RC)
	if err != nil || o.TOS == nil || *o.TOS != 106 || o.AckTimeout == nil || *o.AckTimeout != 14 || o.ReuseAddr != nil || o.AFOnly != nil {
		t.Errorf("optionsOf = %+v, %v", o, err)
	}
}

// Left out, the rd atomics are the device's limits (for a connect) or the
// least of those and the request's offer (for an accept), never
// librdmacm's 255.
func TestRdAtoms(t *testing.T) {
	dev := rdmacm.Limits{MaxQPRdAtom: 128, MaxQPInitRdAtom: 16}
	if r, i := rdAtoms(dev, nil); r != 128 || i != 16 {
		t.Errorf("connect: %d, %d", r, i)
	}
	if r, i := rdAtoms(dev, &rdmacm.ConnParam{ResponderResources: 4, InitiatorDepth: 200}); r != 4 || i != 16 {
		t.Errorf("accept: %d, %d", r, i)
	}
	if r, i := rdAtoms(rdmacm.Limits{MaxQPRdAtom: 1 << 16, MaxQPInitRdAtom: 255}, nil); r != 254 || i != 254 {
		t.Errorf("a device over a byte: %d, %d", r, i)
	}
}
