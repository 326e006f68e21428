package agent

import (
	"fmt"
	"testing"

	"google.golang.org/protobuf/proto"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/rdmacm"
)

// tenThousand fills an agent's registry with 10,000 endpoints in the state
// a connect to a port without listener leaves them (the integration
// benchmark makes real ones).
func tenThousand(b *testing.B) *Agent {
	a := New(nil)
	for i := 0; i < 10000; i++ {
		addr := fmt.Sprintf("endpoint.l[%d]", i)
		o := a.newObject(addr, "tok-"+addr, "", pb.Kind_ENDPOINT)
		o.st.endpointSpec = &pb.EndpointSpec{Address: "10.77.0.1", Port: 31000}
		o.st.record(pb.Status_CONNECTING, "connecting", "to 10.77.0.1:31000")
		o.st.lastError = errorInfo(&rdmacm.EventError{Op: "rdma_connect", Event: rdmacm.Event{Type: rdmacm.Rejected, Status: 8}})
		o.st.record(pb.Status_REJECTED, "REJECTED", "invalid service ID: no listener on that port")
		o.st.facts = &pb.Facts{LocalAddr: "10.77.0.1:45678", RemoteAddr: "10.77.0.1:31000", Device: "rxe0", Port: 1, QpNum: 1234, QpType: "rc", QpState: "RESET"}
		a.reg.add(o)
	}
	return a
}

// BenchmarkListSnapshot10000 is the agent's side of List on 10,000
// objects, as the service answers it (the summaries' cached encodings
// copied into the response): the response and its marshalled size.
func BenchmarkListSnapshot10000(b *testing.B) {
	a := tenThousand(b)
	var size int
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := &pb.ListResponse{}
		r.ProtoReflect().SetUnknown(a.listSummaryWire(filter{}))
		raw, err := proto.Marshal(r)
		if err != nil {
			b.Fatal(err)
		}
		size = len(raw)
	}
	b.ReportMetric(float64(size)/10000, "bytes/object")
}

// BenchmarkListUnmarshal10000 is the client's side of List on 10,000
// objects.
func BenchmarkListUnmarshal10000(b *testing.B) {
	raw, _ := proto.Marshal(&pb.ListResponse{Objects: tenThousand(b).List(false, false, nil)})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var r pb.ListResponse
		if err := proto.Unmarshal(raw, &r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkListTable10000 is the agent's side of a table List on 10,000
// objects, as the service answers it: the encoded table in the response,
// and its marshalled size.
func BenchmarkListTable10000(b *testing.B) {
	a := tenThousand(b)
	var size int
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := &pb.ListResponse{}
		r.ProtoReflect().SetUnknown(a.listTableWire(filter{}))
		raw, err := proto.Marshal(r)
		if err != nil {
			b.Fatal(err)
		}
		size = len(raw)
	}
	b.ReportMetric(float64(size)/10000, "bytes/object")
}

// BenchmarkListTableUnmarshal10000 is the client's side of a table List
// on 10,000 objects, every row read.
func BenchmarkListTableUnmarshal10000(b *testing.B) {
	r := &pb.ListResponse{}
	r.ProtoReflect().SetUnknown(tenThousand(b).listTableWire(filter{}))
	raw, _ := proto.Marshal(r)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var r pb.ListResponse
		if err := proto.Unmarshal(raw, &r); err != nil {
			b.Fatal(err)
		}
		for j := 0; j < r.Table.Len(); j++ {
			if r.Table.Row(j).Address == "" {
				b.Fatal("no address")
			}
		}
	}
}
