package command

import (
	"bytes"
	"strings"
	"testing"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
)

// status lists what each connected QP got under its table, and nothing of
// a connection that ended (its QP is gone).
func TestStatusListsQPAttributes(t *testing.T) {
	t.Parallel()
	u := func(v uint32) *uint32 { return &v }
	attrs := &pb.QPAttrs{ResponderResources: u(128), InitiatorDepth: u(128), TrafficClass: u(106), AckTimeout: u(14)}
	noGRH := &pb.QPAttrs{ResponderResources: u(1), InitiatorDepth: u(0), AckTimeout: u(19)}
	objs := []*pb.Object{
		{Address: "endpoint.up", Kind: pb.Kind_ENDPOINT, Status: pb.Status_ESTABLISHED, Facts: &pb.Facts{QpNum: 31, QpType: "rc", QpAttrs: attrs}},
		{Address: "endpoint.ib", Kind: pb.Kind_ENDPOINT, Status: pb.Status_ESTABLISHED, Facts: &pb.Facts{QpNum: 32, QpType: "rc", QpAttrs: noGRH}},
		{Address: "endpoint.re", Kind: pb.Kind_ENDPOINT, Status: pb.Status_RECONNECTING, Facts: &pb.Facts{QpNum: 33, QpType: "rc", QpAttrs: attrs}},
		{Address: "listener.l", Kind: pb.Kind_LISTENER, Status: pb.Status_LISTENING, Facts: &pb.Facts{}},
	}
	var b bytes.Buffer
	writeStatusTable(&b, objs)
	_, section, ok := strings.Cut(b.String(), "\nQP attributes (ibv_query_qp):\n")
	if !ok {
		t.Fatalf("no QP attributes section:\n%s", b.String())
	}
	section, _, _ = strings.Cut(section, "\n\n")
	want := "  endpoint.ib  responder_resources 1, initiator_depth 0, ack_timeout 19\n" +
		"  endpoint.up  responder_resources 128, initiator_depth 128, traffic_class 106, ack_timeout 14"
	if section != want {
		t.Errorf("section:\n%s\nwant:\n%s\n(whole output:\n%s)", section, want, b.String())
	}
}
