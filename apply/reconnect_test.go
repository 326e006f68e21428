package apply

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/state"
)

// reconnectingFabric is fakeFabric whose endpoints reconnect by
// themselves: AwaitReconnect answers with a new connection's facts.
type reconnectingFabric struct{ *fakeFabric }

func (r reconnectingFabric) AwaitReconnect(_ context.Context, h Handle, _ Spec, reconnects int) (state.Facts, error) {
	defer r.end()
	if err := r.begin(fmt.Sprintf("await-reconnect(%d)", reconnects), h.Name); err != nil {
		return state.Facts{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.qp++
	return state.Facts{Device: "rxe0", PortNum: 1, Status: "established", QPNum: 100 + r.qp, Reconnects: reconnects + 1}, nil
}

// A listener's replacement: its endpoints with a reconnect policy are not
// replaced but awaited on their new connections, after the new listener,
// and the state records the new connections' facts.
func TestEndpointsReconnectingToAReplacedListenerAreAwaited(t *testing.T) {
	e := newEnv(t)
	cfg := load(t, loopback)
	if _, r := e.run(context.Background(), cfg, planner.Options{}, 10); r.Failed() {
		t.Fatalf("apply: %+v", r)
	}
	e.fabric.calls = nil
	rf := reconnectingFabric{e.fabric}
	if err := e.m.RefreshState(); err != nil {
		t.Fatal(err)
	}
	prior := e.m.State()
	loop := addrs.Instance{Resource: addrs.Resource{Kind: addrs.Listener, Name: "loop"}}
	p, diags := planner.Make(context.Background(), cfg, prior, planner.Options{Replace: []addrs.Instance{loop}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	rec, err := e.m.OpenRecorder()
	if err != nil {
		t.Fatal(err)
	}
	r := Apply(context.Background(), p, Options{Fabric: rf, Recorder: rec, Config: cfg, Prior: prior, Parallelism: 10, Progress: e.out,
		NewToken: func() string { return "tok-new" }})
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if r.Failed() || r.Added != 1 || r.Destroyed != 1 || r.Changed != 3 {
		t.Fatalf("report %+v\n%s", r, e.out.String())
	}
	calls := strings.Join(e.fabric.calls, "\n")
	created := strings.Index(calls, "create listener.loop")
	if created < 0 || strings.Count(calls, "await-reconnect(0) endpoint.client[") != 3 || strings.Index(calls, "await-reconnect") < created || strings.Contains(calls, "update endpoint") {
		t.Fatalf("calls:\n%s", calls)
	}
	s := e.current()
	for i := range 3 {
		o := s.Objects[fmt.Sprintf("endpoint.client[%d]", i)]
		if o == nil || o.Facts.Reconnects != 1 || o.Facts.QPNum <= 100 || o.Facts.CreateToken != prior.Objects[o.Addr.String()].Facts.CreateToken {
			t.Fatalf("endpoint.client[%d] recorded as %+v", i, o)
		}
	}
	if !strings.Contains(e.out.String(), "endpoint.client[0]: Modifications complete after") {
		t.Errorf("progress:\n%s", e.out.String())
	}
}
