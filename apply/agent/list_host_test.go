package agent

import (
	"context"
	"net"
	"path/filepath"
	"testing"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/apply/agent/client"
)

// BenchmarkListOverTheSocket10000 lists 10,000 objects (made by
// tenThousand, no RDMA needed) through gRPC on a unix socket, client and
// agent in one process: the natively measured counterpart of the VM's
// BenchmarkList10000.
func BenchmarkListOverTheSocket10000(b *testing.B) {
	a := tenThousand(b)
	socket := filepath.Join(b.TempDir(), "agent.sock")
	ln, err := net.Listen("unix", socket)
	if err != nil {
		b.Fatal(err)
	}
	srv := newServer()
	pb.RegisterAgentServer(srv, &service{agent: a, info: &pb.InfoResponse{}, shutdown: func() {}})
	registerHealth(srv)
	go srv.Serve(ln)
	defer srv.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := client.Dial(ctx, socket)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	if _, err := c.List(ctx, &pb.ListRequest{Full: true}); err != nil { // warms the connection's flow-control windows
		b.Fatal(err)
	}
	for _, v := range []struct {
		name string
		req  *pb.ListRequest
	}{{"summary", &pb.ListRequest{}}, {"full", &pb.ListRequest{Full: true}}, {"table", &pb.ListRequest{Table: true}}} {
		b.Run(v.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				r, err := c.List(ctx, v.req)
				if err != nil || len(r.Objects)+readRows(r.Table) != 10000 {
					b.Fatalf("List: %v", err)
				}
			}
		})
	}
}

// readRows reads every row of a table, as a client would, and counts them.
func readRows(t *pb.SummaryTable) int {
	n := 0
	for i := 0; i < t.Len(); i++ {
		if r := t.Row(i); r.Address != "" && r.Status != pb.Status_STATUS_UNSPECIFIED {
			n++
		}
	}
	return n
}
