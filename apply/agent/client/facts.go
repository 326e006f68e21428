package client

import (
	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"google.golang.org/protobuf/proto"
)

// ConnectionEnded reports whether o is an endpoint or an accepted
// connection whose connection ended, for now (between connections) or
// for good (disconnected, failed, rejected): the agent has released the
// QP and port it last had.
func ConnectionEnded(o *pb.Object) bool {
	if o.Status == pb.Status_RECONNECTING || o.Status == pb.Status_CONNECTING {
		return true
	}
	switch o.Kind {
	case pb.Kind_ENDPOINT, pb.Kind_CONNECTION:
		return o.Status == pb.Status_DISCONNECTED || o.Status == pb.Status_ERROR || o.Status == pb.Status_REJECTED
	}
	return false
}

// CurrentFacts is o's facts without what belonged to a connection that
// ended (its local port, QP and QP state), which the agent keeps as the
// last it knew: status and the monitor show no QP that is gone (rdma
// resource show lists none, or, where QP numbers are reused, another
// connection's). The device and the remote address stay, as the next
// connection's. o's own facts are left as they are.
func CurrentFacts(o *pb.Object) *pb.Facts {
	f := o.Facts
	if f == nil || !ConnectionEnded(o) {
		return f
	}
	f = proto.Clone(f).(*pb.Facts)
	f.LocalAddr, f.QpNum, f.QpState, f.QpAttrs, f.RemoteQpNum, f.RemoteQkey = "", 0, "", nil, 0, 0
	return f
}
