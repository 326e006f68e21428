package agent

import (
	"fmt"
	"testing"
	"time"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
)

// A response is marshalled as gRPC's codec would, into a buffer at most
// twice its size (gRPC's default pool gives one of 1 MiB to anything over
// 32 KiB, and clears it whole each time).
func TestResponsesAreMarshalledIntoBuffersTheirSize(t *testing.T) {
	c := newBoundedCodec()
	for _, n := range []int{1, 100, 1000} {
		resp := &pb.ListResponse{}
		for i := range n {
			resp.Objects = append(resp.Objects, &pb.Object{Address: fmt.Sprintf(`endpoint.e["h%03d-%d"]`, i/100, i), LastEvent: "ESTABLISHED"})
		}
		want, err := proto.Marshal(resp)
		if err != nil {
			t.Fatal(err)
		}
		data, err := c.Marshal(resp)
		if err != nil {
			t.Fatal(err)
		}
		if got := data.Materialize(); string(got) != string(want) {
			t.Fatalf("%d objects: marshalled %d bytes unlike proto.Marshal's %d", n, len(got), len(want))
		}
		for _, b := range data {
			if size, capacity := len(b.ReadOnlyData()), cap(b.ReadOnlyData()); capacity > 2*size && capacity > 4096 {
				t.Errorf("%d objects: %d bytes marshalled into a buffer of %d", n, size, capacity)
			}
		}
		data.Free()
	}
}

// BenchmarkMarshalList marshals and frees a List response of 500 objects
// (about 44 KiB: over gRPC's 32 KiB tier) with gRPC's own codec and with
// the agent's, and prints the ratio of their times.
func BenchmarkMarshalList(b *testing.B) {
	resp := &pb.ListResponse{}
	for i := range 500 {
		resp.Objects = append(resp.Objects, &pb.Object{Address: fmt.Sprintf(`endpoint.e["h001-%d"]`, i), Status: pb.Status_ERROR,
			LastEvent: "ADDR_ERROR", Reconnects: 3,
			LastError: &pb.ErrorInfo{Call: "rdma_resolve_addr", Errno: 19, ErrnoName: "ENODEV", Message: "no such device"}})
	}
	bounded := newBoundedCodec()
	// Each codec in turn, 2,000 marshals at a time, so that both see the
	// same host.
	run := func(c interface {
		Marshal(any) (mem.BufferSlice, error)
	}) time.Duration {
		start := time.Now()
		for range 2000 {
			data, err := c.Marshal(resp)
			if err != nil {
				b.Fatal(err)
			}
			data.Free()
		}
		return time.Since(start) / 2000
	}
	var grpcs, agents time.Duration
	for b.Loop() {
		grpcs += run(bounded.CodecV2)
		agents += run(bounded)
	}
	b.ReportMetric(float64(grpcs.Nanoseconds())/float64(b.N)/1e3, "grpc-us/op")
	b.ReportMetric(float64(agents.Nanoseconds())/float64(b.N)/1e3, "agent-us/op")
	b.ReportMetric(float64(agents)/float64(grpcs), "x-grpc")
	b.ReportMetric(float64(proto.Size(resp))/1024, "KiB")
}
