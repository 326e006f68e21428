package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/rdmacm"
)

// The agent refuses no private data that validate let through, and lets
// through none that validate refuses: both follow the kernel's choice of
// SIDR or connection messages by port space and QP type.
func TestPrivateDataLimitsAgreeWithTheConfiguration(t *testing.T) {
	spaces := map[string]rdmacm.PortSpace{"tcp": rdmacm.PSTCP, "udp": rdmacm.PSUDP, "ib": rdmacm.PSIB, "ipoib": rdmacm.PSIPoIB}
	types := map[string]rdmacm.QPType{"rc": rdmacm.RC, "uc": rdmacm.UC, "ud": rdmacm.UD}
	dirs := map[config.Direction]rdmacm.Direction{config.DirConnect: rdmacm.Connect, config.DirAccept: rdmacm.Accept, config.DirReject: rdmacm.Reject}
	for ps, rps := range spaces {
		// Without a qp block: each side's default QP type.
		if got, want := rdmacm.DefaultQPType(rps).String(), string(config.NaturalQPType(config.PortSpace(ps))); got != want {
			t.Errorf("port space %s: the agent's default QP type is %s, the configuration's %s", ps, got, want)
		}
		for qp, rqp := range types {
			for d, rd := range dirs {
				if agent, cfg := rdmacm.MaxPrivateData(rps, rqp, rd), config.PrivateDataLimit(config.PortSpace(ps), config.QPType(qp), d); agent != cfg {
					t.Errorf("%s/%s %s: the agent allows %d bytes, the configuration %d", ps, qp, d, agent, cfg)
				}
			}
		}
	}
}

// The private data a peer sent is kept without the zeros IB CM messages
// pad it with (an RC connect request's 56 bytes over RoCE), and reaches
// List and both kinds of Watch (with and without history).
func TestReceivedPrivateDataIsTrimmedAndServed(t *testing.T) {
	padded := make([]byte, 56)
	copy(padded, "many-0")
	ev := rdmacm.Event{Type: rdmacm.ConnectRequest, PrivateData: padded}
	if got := receivedPrivateData(ev); string(got) != "many-0" {
		t.Errorf("received %q, want many-0", got)
	}
	if got := receivedPrivateData(rdmacm.Event{Type: rdmacm.Established, PrivateData: make([]byte, 196)}); got != nil {
		t.Errorf("an accept's 196 zeros are received as %q, want nothing", got)
	}

	a := New(nil)
	c := serve(t, a)
	o := fakeObject(a, "listener.l/conn/1", "listener.l", pb.Kind_CONNECTION, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var watches []pb.Agent_WatchClient
	for _, history := range []bool{false, true} {
		w, err := c.Watch(ctx, &pb.WatchRequest{WithHistory: history})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Recv(); err != nil { // the snapshot
			t.Fatal(err)
		}
		watches = append(watches, w)
	}
	o.change(func(s *state) {
		s.receivedPrivateData = receivedPrivateData(ev)
		s.record(pb.Status_ESTABLISHED, "ESTABLISHED", "")
	})
	l, err := c.List(ctx, &pb.ListRequest{Full: true})
	if err != nil || len(l.Objects) != 1 || string(l.Objects[0].ReceivedPrivateData) != "many-0" {
		t.Errorf("List: %v, %v", l, err)
	}
	for i, w := range watches {
		m, err := w.Recv()
		if err != nil || len(m.Changes) != 1 || string(m.Changes[0].Object.ReceivedPrivateData) != "many-0" {
			t.Errorf("watch %d: %v, %v", i, m, err)
		}
	}
}

// A connect that timed out under a timeouts.create shorter than the
// default names that bound as a possible cause, not only the peer (a 1ms
// create fails although the listener answers).
func TestNoEstablishedNamesAShortCreateTimeout(t *testing.T) {
	if got, want := noEstablished(time.Millisecond), "no ESTABLISHED within 1ms of rdma_connect: the peer did not answer in time (no host at the address, a listener whose backlog was full dropped the request, or the timeouts.create bound of 1ms is shorter than a connect takes)"; got != want {
		t.Errorf("1ms:\n got %s\nwant %s", got, want)
	}
	if got := noEstablished(establishTimeout); strings.Contains(got, "timeouts.create") || !strings.Contains(got, "the peer never answered") {
		t.Errorf("the default bound: %s", got)
	}
}

// A reject's private data that is not UTF-8 (reject_private_data_base64)
// becomes a reject reason the API can carry: protobuf refuses a proto3
// string that is not UTF-8, which would fail the agent's whole list.
func TestBinaryRejectDataIsAReasonTheAPICarries(t *testing.T) {
	data := []byte{0xde, 0xad, 0x00, 0xff}
	if _, err := proto.Marshal(&pb.Object{RejectReason: string(data)}); err == nil {
		t.Fatal("protobuf marshalled a reject reason that is not UTF-8: the premise of this test is gone")
	}
	got := rejectText(data)
	if got != "hex dead00ff" {
		t.Errorf("reason %q, want hex dead00ff", got)
	}
	if _, err := proto.Marshal(&pb.Object{RejectReason: got}); err != nil {
		t.Error(err)
	}
	if got := rejectText([]byte("full")); got != "full" {
		t.Errorf("text reason %q, want it as sent", got)
	}
}

// The configuration refuses probes larger than the agent's buffers by its
// own copy of the bound (config does not import the agent).
func TestProbeSizeBoundAgreesWithTheConfiguration(t *testing.T) {
	if MaxProbeSize != config.MaxProbeSize {
		t.Fatalf("agent.MaxProbeSize %d, config.MaxProbeSize %d", MaxProbeSize, config.MaxProbeSize)
	}
}
