package command

import (
	"context"
	"testing"

	"github.com/rdmaform/rdmaform/apply/agent"
	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
)

// serveAgent runs an agent in the test's process with opts until the test
// ends, and returns its Info once it serves.
func serveAgent(t *testing.T, opts agent.Options) *pb.InfoResponse {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan *pb.InfoResponse, 1), make(chan error, 1)
	opts.Ready = func(info *pb.InfoResponse) { ready <- info }
	go func() { done <- agent.Run(ctx, opts) }()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case info := <-ready:
		return info
	case err := <-done:
		t.Fatalf("agent.Run: %v", err)
		return nil
	}
}
