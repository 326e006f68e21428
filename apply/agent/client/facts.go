package client

import (
	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"google.golang.org/protobuf/proto"
)

// BetweenConnections reports whether o is an endpoint whose connection
// ended and whose next one is not made yet.
func BetweenConnections(o *pb.Object) bool {
	return o.Status == pb.Status_RECONNECTING || o.Status == pb.Status_CONNECTING
}

// CurrentFacts is o's facts without what belonged to a connection that
// ended (its local port, QP and QP state), which the agent keeps as the
// last it knew: status and the monitor show no QP that is gone. The
// device and the remote address stay, as the next connection's. o's own
// facts are left as they are.
func CurrentFacts(o *pb.Object) *pb.Facts {
	f := o.Facts
	if f == nil || !BetweenConnections(o) {
		return f
	}
	f = proto.Clone(f).(*pb.Facts)
	f.LocalAddr, f.QpNum, f.QpState = "", 0, ""
	return f
}
