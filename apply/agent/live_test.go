package agent

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/apply/agentfabric"
	"github.com/rdmaform/rdmaform/planner"
)

// plan's refresh (agentfabric's Live) reads this agent's table List: every
// endpoint with its token and status, and not the connections listeners
// accepted.
func TestRefreshReadsTheTableList(t *testing.T) {
	a := New(nil)
	c := serve(t, a)
	for i := 0; i < 3; i++ {
		addr := fmt.Sprintf("endpoint.e[%d]", i)
		o := fakeObject(a, addr, "", pb.Kind_ENDPOINT, 0)
		o.change(func(s *state) { s.record(pb.Status_ESTABLISHED, "ESTABLISHED", "") })
	}
	fakeObject(a, "listener.l/conn/1", "listener.l", pb.Kind_CONNECTION, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// The request Live makes is answered with a table, so Live reads rows.
	if r, err := c.List(ctx, &pb.ListRequest{Table: true, Filter: &pb.Filter{Kinds: []pb.Kind{pb.Kind_ENDPOINT}}}); err != nil || r.GetTable().Len() != 3 || len(r.Objects) != 0 {
		t.Fatalf("table List: %d rows, %d objects, %v", r.GetTable().Len(), len(r.GetObjects()), err)
	}
	live, err := agentfabric.New(c).Live(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(live) != 3 {
		t.Fatalf("Live: %v, want the 3 endpoints", live)
	}
	for i := 0; i < 3; i++ {
		addr := fmt.Sprintf("endpoint.e[%d]", i)
		if o := live[addr]; o.Token != "tok-"+addr || o.Status != "established" {
			t.Errorf("%s: %+v", addr, o)
		}
	}
}

// plan's check of ports held by other configurations (agentfabric's
// Listeners) reads the listeners' specs from this agent's full List.
func TestPlanReadsTheListenersSpecs(t *testing.T) {
	a := New(nil)
	c := serve(t, a)
	fakeListener(t, a, "listener.loop@a", &pb.ListenerSpec{Address: "10.77.0.1", Port: 7610}, pb.Status_LISTENING, true)
	fakeListener(t, a, "listener.any@b", &pb.ListenerSpec{Address: "::", Port: 7611, PortSpace: "udp"}, pb.Status_CREATING, false)
	fakeListener(t, a, "listener.failed@c", &pb.ListenerSpec{Address: "10.77.0.1", Port: 7612}, pb.Status_ERROR, false)
	fakeObject(a, "endpoint.e@a", "", pb.Kind_ENDPOINT, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got, err := agentfabric.New(c).Listeners(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []planner.LiveListener{
		{Handle: "listener.any@b", Address: "::", Port: 7611, PortSpace: "udp"},
		{Handle: "listener.loop@a", Address: "10.77.0.1", Port: 7610, PortSpace: "tcp"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}
