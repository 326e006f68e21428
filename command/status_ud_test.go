package command

import (
	"testing"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
)

// A UD endpoint's QP cell names where its datagrams go: the QP and Q_Key
// of its SIDR reply (the listener's); an RC endpoint's names its own only.
func TestStatusRowShowsAUDEndpointsRemoteQPAndQKey(t *testing.T) {
	ud := &pb.Object{Address: "endpoint.u", Kind: pb.Kind_ENDPOINT, Status: pb.Status_ESTABLISHED,
		Facts: &pb.Facts{QpNum: 18, QpType: "ud", RemoteQpNum: 17, RemoteQkey: 0x01234567}}
	if got, want := statusRow(ud)[6], "18 ud to 17 qkey 0x1234567"; got != want {
		t.Errorf("UD endpoint's QP cell %q, want %q", got, want)
	}
	rc := &pb.Object{Address: "endpoint.r", Kind: pb.Kind_ENDPOINT, Status: pb.Status_ESTABLISHED,
		Facts: &pb.Facts{QpNum: 19, QpType: "rc", RemoteQpNum: 20}}
	if got, want := statusRow(rc)[6], "19 rc"; got != want {
		t.Errorf("RC endpoint's QP cell %q, want %q", got, want)
	}
}
