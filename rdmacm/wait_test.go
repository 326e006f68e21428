//go:build linux && cgo

package rdmacm

import (
	"context"
	"errors"
	"testing"
	"time"
)

// fakeCM is an id's event queue fed as the kernel feeds it, so the waits
// over it run without RDMA.
type fakeCM struct{ q *queue[Event] }

func newFakeCM() *fakeCM { return &fakeCM{q: newQueue[Event]()} }

func (f *fakeCM) post(t EventType) error { f.q.put(Event{Type: t}); return nil }

func waitCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// With IB path records (InfiniBand with ibacm), rdma_set_option queues a
// ROUTE_RESOLVED; the connect that follows must still see ESTABLISHED.
func TestRouteResolvedAfterIBPathIsTaken(t *testing.T) {
	f := newFakeCM()
	setPath := func() error { return f.post(RouteResolved) } // as ucma_set_ib_path does
	resolveRoute := func() error {
		t.Error("the route was resolved though the address info carries path records")
		return nil
	}
	if err := routeStep(waitCtx(t), true, setPath, resolveRoute, f.q.next); err != nil {
		t.Fatalf("routeStep with IB path records: %v", err)
	}
	f.post(Established) // the peer accepts
	if _, err := waitEstablishedOn(waitCtx(t), f.q.next, "rdma_connect"); err != nil {
		t.Fatalf("the connect after setting IB path records: %v", err)
	}
}

func TestRouteResolvedAfterResolveRoute(t *testing.T) {
	f := newFakeCM()
	setPath := func() error {
		t.Error("IB path records were set though the address info has none")
		return nil
	}
	resolveRoute := func() error { return f.post(RouteResolved) }
	if err := routeStep(waitCtx(t), false, setPath, resolveRoute, f.q.next); err != nil {
		t.Fatalf("routeStep: %v", err)
	}
	f.post(Established)
	if _, err := waitEstablishedOn(waitCtx(t), f.q.next, "rdma_connect"); err != nil {
		t.Fatalf("the connect after resolving the route: %v", err)
	}
}

func TestRouteStepSaysWhatFailed(t *testing.T) {
	f := newFakeCM()
	f.post(RouteError)
	err := routeStep(waitCtx(t), true, func() error { return nil }, nil, f.q.next)
	var ee *EventError
	if !errors.As(err, &ee) || ee.Op != "rdma_set_option(RDMA_OPTION_IB_PATH)" || ee.Event.Type != RouteError {
		t.Fatalf("a ROUTE_ERROR after setting the path: %v, want an EventError of rdma_set_option(RDMA_OPTION_IB_PATH)", err)
	}
	refused := errors.New("refused")
	if err := routeStep(waitCtx(t), true, func() error { return refused }, nil, f.q.next); err != refused {
		t.Fatalf("a failed rdma_set_option: %v, want its error", err)
	}
}
