package agent

import (
	"context"
	"fmt"
	"testing"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/apply/agentfabric"
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
