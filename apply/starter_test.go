package apply

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/state"
)

// starterFabric is fakeFabric whose endpoint creates return at once and
// then wait at gate, as agentfabric's do while the endpoint connects.
type starterFabric struct {
	*fakeFabric
	gate    chan struct{}
	waiting chan string
}

func (s *starterFabric) StartCreate(ctx context.Context, h Handle, spec Spec, token string) (func() (state.Facts, error), error) {
	a := h.Addr
	facts, err := s.Create(ctx, h, spec, token)
	if err != nil {
		return nil, err
	}
	if a.Kind != addrs.Endpoint {
		return func() (state.Facts, error) { return facts, nil }, nil
	}
	return func() (state.Facts, error) {
		s.waiting <- a.String()
		<-s.gate
		if a.String() == "endpoint.client[1]" {
			return state.Facts{}, errors.New("rdma_connect: connection refused (ECONNREFUSED)")
		}
		return facts, nil
	}, nil
}

// With a Starter fabric, an endpoint's create holds a parallelism slot for
// its call only: with parallelism 1, all three endpoints wait for their
// connections at once; each outcome is then recorded (or reported) as
// Create's would be.
func TestStarterWaitsHoldNoParallelismSlot(t *testing.T) {
	e := newEnv(t)
	sf := &starterFabric{fakeFabric: e.fabric, gate: make(chan struct{}), waiting: make(chan string, 3)}
	rec, done := applyLoopback(t, e, Options{Fabric: sf, Parallelism: 1})
	waiting := map[string]bool{}
	for len(waiting) < 3 {
		select {
		case a := <-sf.waiting:
			waiting[a] = true
		case <-time.After(10 * time.Second):
			t.Fatalf("only %v wait at once with parallelism 1: the waits hold slots", waiting)
		}
	}
	close(sf.gate)
	r := <-done
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if r.Added != 4 || len(r.Errors) != 1 || r.Errors[0].Addr.String() != "endpoint.client[1]" ||
		!strings.Contains(r.Errors[0].Error(), "ECONNREFUSED") {
		t.Fatalf("report %+v", r)
	}
	s := e.current()
	for _, a := range []string{"protection_domain.rxe", "listener.loop", "endpoint.client[0]", "endpoint.client[2]"} {
		o := s.Objects[a]
		if o == nil || o.Facts.CreateToken == "" {
			t.Fatalf("%s not recorded: %+v", a, s.Objects)
		}
	}
	if s.Objects["endpoint.client[1]"] != nil {
		t.Fatal("the failed endpoint is recorded")
	}
}

// notStartedFabric's endpoint creates give up, as agentfabric's do when the
// walk stops while they wait for room among the endpoints connecting.
type notStartedFabric struct{ *fakeFabric }

func (n notStartedFabric) StartCreate(ctx context.Context, h Handle, spec Spec, token string) (func() (state.Facts, error), error) {
	if h.Addr.Kind == addrs.Endpoint {
		return nil, ErrNotStarted
	}
	facts, err := n.Create(ctx, h, spec, token)
	return func() (state.Facts, error) { return facts, err }, nil
}

func TestStarterNotStartedIsReportedSo(t *testing.T) {
	e := newEnv(t)
	cfg, p, rec := planLoopback(t, e)
	r := Apply(context.Background(), p, Options{Fabric: notStartedFabric{e.fabric}, Recorder: rec, Config: cfg, Progress: e.out})
	rec.Close()
	if r.Added != 2 || len(r.Errors) != 0 || len(r.NotStarted) != 3 || !r.Failed() {
		t.Fatalf("report %+v", r)
	}
}

// deleteStarterFabric's endpoint deletes are queued at once and then wait
// at gate, as agentfabric's do while their DeleteMany call runs.
type deleteStarterFabric struct {
	*fakeFabric
	gate    chan struct{}
	waiting chan string
}

func (d *deleteStarterFabric) StartDelete(ctx context.Context, h Handle, token string) (func() error, error) {
	return func() error {
		if h.Addr.Kind == addrs.Endpoint {
			d.waiting <- h.Name
			<-d.gate
		}
		return d.Delete(ctx, h, token)
	}, nil
}

// With a DeleteStarter, deletes hold a slot only while queued: with
// parallelism 1 every endpoint's delete waits at once, the listener and
// the PD still after them, and every delete is recorded.
func TestDeleteStarterWaitsHoldNoParallelismSlot(t *testing.T) {
	e := newEnv(t)
	cfg := load(t, loopback)
	if _, r := e.run(context.Background(), cfg, planner.Options{}, 10); r.Failed() {
		t.Fatalf("apply: %+v", r)
	}
	ds := &deleteStarterFabric{fakeFabric: e.fabric, gate: make(chan struct{}), waiting: make(chan string, 3)}
	if err := e.m.RefreshState(); err != nil {
		t.Fatal(err)
	}
	prior := e.m.State()
	p, diags := planner.Make(context.Background(), cfg, prior, planner.Options{Destroy: true})
	if diags.HasErrors() {
		t.Fatalf("plan: %v", diags)
	}
	rec, err := e.m.OpenRecorder()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan *Report)
	go func() {
		done <- Apply(context.Background(), p, Options{Fabric: ds, Recorder: rec, Prior: prior, Parallelism: 1, Progress: e.out})
	}()
	waiting := map[string]bool{}
	for len(waiting) < 3 {
		select {
		case a := <-ds.waiting:
			waiting[a] = true
		case <-time.After(10 * time.Second):
			t.Fatalf("only %v wait at once with parallelism 1: the waits hold slots", waiting)
		}
	}
	close(ds.gate)
	r := <-done
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if r.Failed() || r.Destroyed != 5 {
		t.Fatalf("report %+v", r)
	}
	calls := strings.Join(e.fabric.calls, "\n")
	if !regexpMatch(`(?s)delete endpoint.*delete listener.loop\ndelete protection_domain.rxe$`, calls) {
		t.Fatalf("order:\n%s", calls)
	}
	if s := e.current(); len(s.Objects) != 0 {
		t.Fatalf("left in the state: %v", s.Objects)
	}
}

// With HoldSlots (an explicit -parallelism), an endpoint's create holds
// its slot while it waits for its connection: with parallelism 1, one
// endpoint waits at a time.
func TestHoldSlotsBoundsConnectionsBeingMade(t *testing.T) {
	e := newEnv(t)
	sf := &starterFabric{fakeFabric: e.fabric, gate: make(chan struct{}), waiting: make(chan string, 3)}
	rec, done := applyLoopback(t, e, Options{Fabric: sf, Parallelism: 1, HoldSlots: true})
	for i := 0; i < 3; i++ {
		select {
		case <-sf.waiting:
		case <-time.After(10 * time.Second):
			t.Fatalf("endpoint %d did not wait", i)
		}
		select {
		case a := <-sf.waiting:
			t.Fatalf("%s waits beside another with parallelism 1", a)
		case <-time.After(100 * time.Millisecond):
		}
		sf.gate <- struct{}{}
	}
	r := <-done
	rec.Close()
	if r.Added != 4 || len(r.Errors) != 1 {
		t.Fatalf("report %+v", r)
	}
}

// applyLoopback plans the loopback configuration from an empty state and
// starts applying it with opts (its Recorder, Config and Progress set
// here); done reports the apply.
func applyLoopback(t *testing.T, e *env, opts Options) (state.Recorder, chan *Report) {
	t.Helper()
	if err := e.m.RefreshState(); err != nil {
		t.Fatal(err)
	}
	cfg, p, rec := planLoopback(t, e)
	opts.Recorder, opts.Config, opts.Progress = rec, cfg, e.out
	done := make(chan *Report)
	go func() { done <- Apply(context.Background(), p, opts) }()
	return rec, done
}

// cancellingFabric's endpoint waits end as agentfabric's do when Ctrl-C
// comes while the endpoint connects: the agent dropped it. Each endpoint
// whose wait has begun is sent on waiting.
type cancellingFabric struct {
	*fakeFabric
	waiting chan string
}

func (c cancellingFabric) StartCreate(ctx context.Context, h Handle, spec Spec, token string) (func() (state.Facts, error), error) {
	facts, err := c.Create(ctx, h, spec, token)
	if err != nil || h.Addr.Kind != addrs.Endpoint {
		return func() (state.Facts, error) { return facts, err }, err
	}
	c.waiting <- h.Addr.String()
	return func() (state.Facts, error) {
		<-ctx.Done()
		c.Delete(context.Background(), h, token)
		return state.Facts{}, fmt.Errorf("%w while it was connecting", ErrCancelled)
	}, nil
}

// Creates cancelled by Ctrl-C are reported as cancelled, with their own
// progress line, and nothing of them stays in the state (not even as
// being made): the next plan simply creates them.
func TestInterruptedWaitsAreCancelledAndNotRecorded(t *testing.T) {
	e := newEnv(t)
	cfg, p, rec := planLoopback(t, e)
	ctx, cancel := context.WithCancel(context.Background())
	fabric := cancellingFabric{fakeFabric: e.fabric, waiting: make(chan string, 3)}
	go func() {
		// Ctrl-C once all three endpoints wait for their connections: the
		// walk starts them in no fixed order, so a progress line of one
		// says nothing of the others.
		for i := 0; i < 3; i++ {
			<-fabric.waiting
		}
		cancel()
	}()
	r := Apply(ctx, p, Options{Fabric: fabric, Recorder: rec, Config: cfg, Progress: e.out})
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if r.Added != 2 || len(r.Errors) != 0 || len(r.Cancelled) != 3 || len(r.NotStarted) != 0 || !r.Interrupted || !r.Failed() {
		t.Fatalf("report %+v", r)
	}
	if !strings.Contains(e.out.String(), "endpoint.client[0]: Creation cancelled after") {
		t.Errorf("no cancelled line:\n%s", e.out.String())
	}
	s := e.current()
	for a, o := range s.Objects {
		if strings.HasPrefix(a, "endpoint.") {
			t.Errorf("%s recorded (pending %v)", a, o.Facts.Pending)
		}
	}
	if len(s.Objects) != 2 {
		t.Errorf("objects %v", s.Objects)
	}
}

// planLoopback plans the loopback configuration from nothing and opens a
// recorder of e's state for its apply.
func planLoopback(t *testing.T, e *env) (*config.Config, *planner.Plan, state.Recorder) {
	t.Helper()
	cfg := load(t, loopback)
	p, diags := planner.Make(context.Background(), cfg, nil, planner.Options{})
	if diags.HasErrors() {
		t.Fatalf("plan: %v", diags)
	}
	rec, err := e.m.OpenRecorder()
	if err != nil {
		t.Fatal(err)
	}
	return cfg, p, rec
}
