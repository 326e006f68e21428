package apply

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/state"
)

// importFabric is the fake fabric that also imports: it hands back, as the
// agent would, the facts and token of what it holds, once it has the spec
// the configuration makes.
type importFabric struct{ *fakeFabric }

func (f importFabric) Import(_ context.Context, h Handle, s Spec) (state.Facts, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	token, ok := f.live[h.Name]
	if !ok {
		return state.Facts{}, errors.New("no such object")
	}
	f.specs[h.Name+" imported"] = s
	return state.Facts{Device: "rxe0", QPNum: 77, CreateToken: token, AgentHandle: h.Name}, nil
}

// Import records what the fabric holds as the configuration's address,
// after what it depends on, and then plans no change for it.
func TestImportRecordsTheObjectAsApplyWould(t *testing.T) {
	e := newEnv(t)
	cfg := load(t, loopback)
	if _, r := e.run(context.Background(), cfg, planner.Options{}, 10); r.Failed() {
		t.Fatalf("apply: %+v", r)
	}
	lost := newEnv(t) // another state, the same fabric
	lost.fabric = e.fabric
	importAs := func(addr string) error {
		t.Helper()
		a, err := addrs.ParseInstance(addr)
		if err != nil {
			t.Fatal(err)
		}
		if err := lost.m.RefreshState(); err != nil {
			t.Fatal(err)
		}
		prior := lost.m.State()
		p, diags := planner.Make(context.Background(), cfg, prior, planner.Options{})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		rec, err := lost.m.OpenRecorder()
		if err != nil {
			t.Fatal(err)
		}
		defer rec.Close()
		return Import(context.Background(), p, a, addr, Options{Fabric: importFabric{lost.fabric}, Recorder: rec, Config: cfg, Prior: prior})
	}
	if err := importAs("endpoint.client[1]"); err == nil || !strings.Contains(err.Error(), "refers to protection_domain.rxe, listener.loop, which the state does not hold: import them first") {
		t.Fatalf("import before its dependencies: %v", err)
	}
	for _, a := range []string{"protection_domain.rxe", "listener.loop", "endpoint.client[0]", "endpoint.client[1]", "endpoint.client[2]"} {
		if err := importAs(a); err != nil {
			t.Fatalf("import %s: %v", a, err)
		}
	}
	if err := importAs("endpoint.client[2]"); !errors.Is(err, ErrNotImportable) {
		t.Fatalf("import of an address the state holds: %v, want ErrNotImportable", err)
	}
	if pd := e.fabric.specs["endpoint.client[1] imported"].Endpoint.PD; pd != "protection_domain.rxe" {
		t.Errorf("the imported endpoint's spec names protection domain %q", pd)
	}
	st := lost.current()
	o := st.Object(addrs.Instance{Resource: addrs.Resource{Kind: addrs.Endpoint, Name: "client"}, Key: addrs.IntKey(1)})
	if o == nil || o.Facts.QPNum != 77 || o.Facts.CreateToken == "" || o.Facts.CreateToken != e.fabric.live["endpoint.client[1]"] || len(o.Dependencies) == 0 {
		t.Fatalf("imported endpoint in the state: %+v", o)
	}
	p, diags := planner.Make(context.Background(), cfg, st, planner.Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for _, c := range p.Changes {
		if c.Action != planner.NoOp && c.Addr.String() != "endpoint.client[3]" {
			t.Errorf("after import, the plan has %s for %s", c.Action, c.Addr)
		}
	}
}
