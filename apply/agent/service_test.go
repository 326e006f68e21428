package agent

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/apply/agent/client"
	"github.com/rdmaform/rdmaform/rdmacm"
)

// serve serves a over gRPC on a unix socket in a temporary directory and
// returns a client connected to it.
func serve(t testing.TB, a *Agent) *client.Client {
	t.Helper()
	socket := filepath.Join(t.TempDir(), "agent.sock")
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer()
	pb.RegisterAgentServer(srv, &service{agent: a, info: &pb.InfoResponse{Pid: 1}, shutdown: func() {}})
	registerHealth(srv)
	go srv.Serve(ln)
	t.Cleanup(srv.Stop)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// fakeObject registers an object whose goroutine, once cancelled, takes
// stopTook to finish, as an endpoint waits for its peer's DISCONNECTED.
func fakeObject(a *Agent, addr, parent string, kind pb.Kind, stopTook time.Duration) *object {
	o := a.newObject(addr, "tok-"+addr, parent, kind)
	a.prepare(o)
	a.reg.add(o)
	a.start(o, func(ctx context.Context) {
		<-ctx.Done()
		time.Sleep(stopTook)
	})
	return o
}

func TestDeleteManyStopsInParallelWithResultsInOrder(t *testing.T) {
	a := New(nil)
	c := serve(t, a)
	const n, stopTook = 20, 200 * time.Millisecond
	var addrs []string
	for i := 0; i < n; i++ {
		addr := fmt.Sprintf("endpoint.d[%d]", i)
		o := fakeObject(a, addr, "", pb.Kind_ENDPOINT, stopTook)
		o.pdAddress = "protection_domain.p"
		addrs = append(addrs, addr)
	}
	pd := a.newObject("protection_domain.p", "tok", "", pb.Kind_PROTECTION_DOMAIN)
	close(pd.done)
	a.reg.add(pd)
	keep := fakeObject(a, "endpoint.keep", "", pb.Kind_ENDPOINT, 0)
	keep.pdAddress = "protection_domain.q"
	pdInUse := a.newObject("protection_domain.q", "tok", "", pb.Kind_PROTECTION_DOMAIN)
	close(pdInUse.done)
	a.reg.add(pdInUse)

	// The PD first: it is freed after its users in the same request.
	req := append([]string{"protection_domain.p", "endpoint.gone", "protection_domain.q"}, addrs...)
	req = append(req, "endpoint.d[3]") // twice
	start := time.Now()
	r, err := c.DeleteMany(context.Background(), &pb.DeleteManyRequest{Addresses: req})
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	// One after another, 20 objects would take 4 s.
	if took > n*stopTook/4 {
		t.Errorf("deleting %d objects that take %v each to stop took %v: not in parallel", n, stopTook, took)
	}
	if len(r.Results) != len(req) {
		t.Fatalf("%d results for %d addresses", len(r.Results), len(req))
	}
	for i, res := range r.Results {
		if res.Address != req[i] {
			t.Errorf("result %d is for %s, want %s", i, res.Address, req[i])
		}
		wantExisted, wantCode := true, codes.OK
		switch {
		case req[i] == "endpoint.gone", i == len(req)-1:
			wantExisted = false
		case req[i] == "protection_domain.q":
			wantCode = codes.FailedPrecondition
		}
		if res.Existed != wantExisted || codes.Code(res.Code) != wantCode {
			t.Errorf("%s: existed %v code %v (%s), want existed %v code %v", res.Address, res.Existed, codes.Code(res.Code), res.Error, wantExisted, wantCode)
		}
	}
	for _, addr := range append(addrs, "protection_domain.p") {
		if a.reg.get(addr) != nil {
			t.Errorf("%s is still held", addr)
		}
	}
	if a.reg.get("endpoint.keep") == nil || a.reg.get("protection_domain.q") == nil {
		t.Error("an object the request did not name (or a PD in use) was deleted")
	}
}

func TestWatchFilterSendsOnlyWhatMatches(t *testing.T) {
	a := New(nil)
	c := serve(t, a)
	l := fakeObject(a, "listener.l", "", pb.Kind_LISTENER, 0)
	fakeObject(a, "listener.l/conn/1", "listener.l", pb.Kind_CONNECTION, 0)
	fakeObject(a, "endpoint.a[0]", "", pb.Kind_ENDPOINT, 0)
	fakeObject(a, "endpoint.b[0]", "", pb.Kind_ENDPOINT, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	open := func(f *pb.Filter) pb.Agent_WatchClient {
		s, err := c.Watch(ctx, &pb.WatchRequest{Filter: f})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	filtered := open(&pb.Filter{Prefixes: []string{"endpoint.a[", "listener."}, Kinds: []pb.Kind{pb.Kind_ENDPOINT, pb.Kind_LISTENER}})
	all := open(nil)
	snap := func(s pb.Agent_WatchClient) []string {
		m, err := s.Recv()
		if err != nil || !m.Snapshot {
			t.Fatalf("snapshot: %v %v", m, err)
		}
		var out []string
		for _, o := range m.Objects {
			out = append(out, o.Address)
		}
		return out
	}
	if got, want := fmt.Sprint(snap(filtered)), "[endpoint.a[0] listener.l]"; got != want {
		t.Errorf("filtered snapshot %s, want %s", got, want)
	}
	if got := len(snap(all)); got != 4 {
		t.Errorf("unfiltered snapshot has %d objects, want 4", got)
	}
	// Changes of every kind; the filtered watch sees the endpoint's and
	// the listener's only, then a marker change of its own.
	for _, addr := range []string{"listener.l/conn/1", "endpoint.b[0]", "endpoint.a[0]"} {
		a.reg.get(addr).event(pb.Status_CONNECTING, "connecting", "")
	}
	a.stopObject(a.reg.get("listener.l/conn/1"))
	l.event(pb.Status_LISTENING, "marker", "")
	var got []string
	for len(got) == 0 || got[len(got)-1] != "listener.l marker" {
		m, err := filtered.Recv()
		if err != nil {
			t.Fatal(err)
		}
		for _, ch := range m.Changes {
			got = append(got, ch.Object.Address+" "+map[bool]string{true: "deleted", false: ch.Object.LastEvent}[ch.Deleted])
		}
	}
	if want := "[endpoint.a[0] connecting listener.l marker]"; fmt.Sprint(got) != want {
		t.Errorf("filtered changes %q, want %s", got, want)
	}
	var n int
	for n < 5 { // conn, endpoint.b, endpoint.a, conn deleted, marker
		m, err := all.Recv()
		if err != nil {
			t.Fatal(err)
		}
		n += len(m.Changes)
	}
}

func TestListSummaryOnTheWireIsTheSummary(t *testing.T) {
	a := New(nil)
	c := serve(t, a)
	for i := 0; i < 50; i++ {
		o := fakeObject(a, fmt.Sprintf("endpoint.w[%d]", i), "", pb.Kind_ENDPOINT, 0)
		o.failure(pb.Status_REJECTED, "REJECTED", &rdmacm.EventError{Op: "rdma_connect", Event: rdmacm.Event{Type: rdmacm.Rejected, Status: 8}})
	}
	fakeObject(a, "listener.l", "", pb.Kind_LISTENER, 0)
	fakeObject(a, "listener.l/conn/1", "listener.l", pb.Kind_CONNECTION, 0)
	a.reg.get("endpoint.w[7]").event(pb.Status_CONNECTING, "connecting", "") // after its encoding was cached below
	ctx := context.Background()
	for round := 0; round < 2; round++ {
		r, err := c.List(ctx, &pb.ListRequest{})
		if err != nil {
			t.Fatal(err)
		}
		want := a.List(false, false, nil)
		if len(r.Objects) != len(want) || r.Agent.GetPid() != 1 {
			t.Fatalf("%d objects (agent %v), want %d", len(r.Objects), r.Agent, len(want))
		}
		for i := range want {
			if !proto.Equal(r.Objects[i], want[i]) {
				t.Errorf("object %d: got %v, want %v", i, r.Objects[i], want[i])
			}
		}
		if len(r.ProtoReflect().GetUnknown()) != 0 {
			t.Error("the client kept unknown fields")
		}
		// A change, and its summary message made (as CreateEndpoints does)
		// before the next List: a stale encoding would show.
		a.reg.get("endpoint.w[7]").event(pb.Status_ESTABLISHED, "ESTABLISHED", "")
		a.reg.get("endpoint.w[7]").summary()
	}
	r, err := c.List(ctx, &pb.ListRequest{Filter: &pb.Filter{Kinds: []pb.Kind{pb.Kind_ENDPOINT, pb.Kind_LISTENER}, Prefixes: []string{"listener."}}})
	if err != nil || len(r.Objects) != 1 || r.Objects[0].Address != "listener.l" {
		t.Errorf("filtered list: %v, %v", r.GetObjects(), err)
	}
	r, err = c.List(ctx, &pb.ListRequest{Full: true, Filter: &pb.Filter{Prefixes: []string{"endpoint.w[1"}}})
	if err != nil || len(r.Objects) != 11 || r.Objects[0].CreatedAt == 0 {
		t.Errorf("filtered full list: %d objects, %v", len(r.GetObjects()), err)
	}
}

func TestListTableRowsAreTheSummaries(t *testing.T) {
	a := New(nil)
	c := serve(t, a)
	for i := 0; i < 30; i++ {
		o := fakeObject(a, fmt.Sprintf("endpoint.t[%d]", i), "", pb.Kind_ENDPOINT, 0)
		switch i % 3 {
		case 0:
			o.failure(pb.Status_REJECTED, "REJECTED", &rdmacm.EventError{Op: "rdma_connect", Event: rdmacm.Event{Type: rdmacm.Rejected, Status: 8}})
		case 1:
			o.change(func(s *state) {
				s.connectedSince = time.Now()
				s.record(pb.Status_ESTABLISHED, "ESTABLISHED", "")
				s.probe = &probeStats{}
				s.probe.add(time.Duration(i)*time.Microsecond, false)
				s.reconnects = uint32(i)
			})
		}
	}
	l := fakeObject(a, "listener.l", "", pb.Kind_LISTENER, 0)
	l.change(func(s *state) { s.connections = 2 })
	fakeObject(a, "listener.l/conn/1", "listener.l", pb.Kind_CONNECTION, 0).failure(pb.Status_ERROR, "error", &agentError{Call: "rdma_accept", Msg: "x"})
	r, err := c.List(context.Background(), &pb.ListRequest{Table: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Objects) != 0 || r.Agent.GetPid() != 1 {
		t.Errorf("a table list carries %d objects, agent %v", len(r.Objects), r.Agent)
	}
	want := a.List(false, false, nil)
	tab := r.Table
	if tab.Len() != len(want) {
		t.Fatalf("%d rows, want %d", tab.Len(), len(want))
	}
	for i, w := range want {
		if got := tab.Row(i).Object(); !proto.Equal(got, w) {
			t.Errorf("row %d: %v, want %v", i, got, w)
		}
	}
	if len(tab.LastEventAt)+len(tab.ConnectedSince)+len(tab.LastErrorAt) != 0 || len(tab.LastEventBefore) != tab.Len() || tab.TimeBase == 0 {
		t.Errorf("the times are not sent relative to the newest: base %d, %d relative, %d absolute", tab.TimeBase, len(tab.LastEventBefore), len(tab.LastEventAt))
	}
	if len(tab.Errors) != 2 || len(tab.Probes) != 10 {
		t.Errorf("%d errors in the dictionary (want 2), %d probe rows (want 10)", len(tab.Errors), len(tab.Probes))
	}
	r, err = c.List(context.Background(), &pb.ListRequest{Table: true, Filter: &pb.Filter{Prefixes: []string{"listener.l/"}}})
	if err != nil || r.Table.Len() != 1 || r.Table.Row(0).Parent != "listener.l" || r.Table.Row(0).LastError.GetCall() != "rdma_accept" {
		t.Errorf("filtered table: %v, %v", r.GetTable(), err)
	}
	r, err = c.List(context.Background(), &pb.ListRequest{Table: true, Filter: &pb.Filter{Statuses: []pb.Status{pb.Status_ESTABLISHED, pb.Status_ERROR}}})
	if err != nil || r.Table.Len() != 11 {
		t.Fatalf("table of established and failed objects: %d rows (want 11), %v", r.GetTable().Len(), err)
	}
	for i := range r.Table.Len() {
		if st := r.Table.Row(i).Status; st != pb.Status_ESTABLISHED && st != pb.Status_ERROR {
			t.Errorf("row %d (%s) is %s", i, r.Table.Row(i).Address, st)
		}
	}
	r, err = c.List(context.Background(), &pb.ListRequest{Filter: &pb.Filter{Kinds: []pb.Kind{pb.Kind_ENDPOINT}, Statuses: []pb.Status{pb.Status_REJECTED}}})
	if err != nil || len(r.Objects) != 10 || r.Objects[0].Status != pb.Status_REJECTED {
		t.Errorf("rejected endpoints: %d objects (want 10), %v", len(r.GetObjects()), err)
	}
}

// A table from an agent that sent its times as Unix nanoseconds reads as
// one that sends them relative to the newest.
func TestTableTimesInEitherForm(t *testing.T) {
	old := &pb.SummaryTable{Addresses: "ab", AddressEnds: []uint32{1, 2}, LastEventAt: []int64{1000, 2000}, ConnectedSince: []int64{0, 1500}, LastErrorAt: []int64{900, 0}}
	relative := &pb.SummaryTable{Addresses: "ab", AddressEnds: []uint32{1, 2}, TimeBase: 2000,
		LastEventBefore: []uint64{1001, 1}, ConnectedBefore: []uint64{0, 501}, LastErrorBefore: []uint64{1101, 0}}
	for i := range 2 {
		o, r := old.Row(i), relative.Row(i)
		if o.LastEventAt != r.LastEventAt || o.ConnectedSince != r.ConnectedSince || o.LastErrorAt != r.LastErrorAt {
			t.Errorf("row %d: %+v from Unix times, %+v from relative ones", i, o, r)
		}
	}
	if r := relative.Row(0); r.LastEventAt != 1000 || r.ConnectedSince != 0 || r.LastErrorAt != 900 {
		t.Errorf("row 0: %+v", r)
	}
}

// A delete that arrives between an object's registration and the start of
// its goroutine must still stop it (it used to find no cancel function and
// wait forever).
func TestDeleteRightAfterRegistrationStopsTheObject(t *testing.T) {
	a := New(nil)
	o := a.newObject("endpoint.early", "tok", "", pb.Kind_ENDPOINT)
	a.prepare(o)
	a.reg.add(o)
	deleted := make(chan []DeleteResult, 1)
	go func() { deleted <- a.DeleteMany([]string{"endpoint.early"}) }()
	time.Sleep(50 * time.Millisecond) // the delete is waiting for the goroutine
	a.start(o, func(ctx context.Context) { <-ctx.Done() })
	select {
	case r := <-deleted:
		if len(r) != 1 || !r[0].Existed || r[0].Err != nil {
			t.Fatalf("DeleteMany: %+v", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the delete is still waiting for an object nothing stopped")
	}
	if a.reg.get("endpoint.early") != nil {
		t.Fatal("the object is still registered")
	}
}
