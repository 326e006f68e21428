package agentfabric

import (
	"context"
	"strings"
	"testing"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// failingAgent answers every List with its error.
type failingAgent struct {
	pb.AgentClient
	err error
}

func (a *failingAgent) List(context.Context, *pb.ListRequest, ...grpc.CallOption) (*pb.ListResponse, error) {
	return nil, a.err
}

// The agent's errors of every code reach apply and plan in words: the
// agent's message and what to do, without gRPC's "rpc error: code = ..."
// nor the code's name in brackets ("... (InvalidArgument)").
func TestAgentErrorsOfEveryCodeAreSaidInWords(t *testing.T) {
	t.Parallel()
	for c := codes.Canceled; c <= codes.Unauthenticated; c++ {
		err := status.Error(c, "listener.l: port must be at most 65535")
		words := rpcError(err).Error()
		if strings.Contains(words, "rpc error:") || strings.Contains(words, "code = ") || strings.Contains(words, "desc = ") ||
			strings.Contains(words, "("+c.String()+")") || !strings.Contains(words, "port must be at most 65535") && c != codes.DeadlineExceeded && c != codes.Canceled {
			t.Errorf("%v: %q", c, words)
		}
		if status.Code(rpcError(err)) != c {
			t.Errorf("%v: the status is not kept underneath", c)
		}
		// Through the fabric, as plan reads the live objects.
		_, lerr := New(&failingAgent{err: err}).Live(context.Background())
		if lerr == nil || strings.Contains(lerr.Error(), "rpc error:") || strings.Contains(lerr.Error(), "("+c.String()+")") {
			t.Errorf("%v: Live: %v", c, lerr)
		}
	}
}
