package rdmacm

import (
	"context"
	"errors"
	"fmt"
	"syscall"
)

// The waits below read an id's events through next (its NextEvent), so they
// hold no C and the tests can feed them events of their own.
type nextEvent func(context.Context) (Event, error)

// routeStep gives an id its route: the IB path records rdma_getaddrinfo
// found (setPath, rdma_set_option(RDMA_OPTION_IB_PATH)) when there are
// some, otherwise a route resolution (resolveRoute). Either way the kernel
// queues ROUTE_RESOLVED, and it is taken here: left queued after setPath,
// it would be the event the connect's wait for ESTABLISHED meets first.
// (librdmacm's synchronous rdma_set_option takes it the same way.)
func routeStep(ctx context.Context, hasPath bool, setPath, resolveRoute func() error, next nextEvent) error {
	op, start := "rdma_resolve_route", resolveRoute
	if hasPath {
		op, start = "rdma_set_option(RDMA_OPTION_IB_PATH)", setPath
	}
	if err := start(); err != nil {
		return err
	}
	return expectEvent(ctx, next, op, RouteResolved)
}

// expectEvent waits for one event of type t, which ends op.
func expectEvent(ctx context.Context, next nextEvent, op string, t EventType) error {
	e, err := next(ctx)
	for err == nil && e.Type.DeviceEvent() && t != e.Type {
		e, err = next(ctx) // a port's news, not the resolution's outcome
	}
	if errors.Is(err, context.DeadlineExceeded) {
		// What the kernel reports when its own timeout_ms, set to the same
		// deadline, runs out first.
		return &OpError{Op: op, Err: syscall.ETIMEDOUT}
	}
	if err != nil {
		return fmt.Errorf("%s: waiting for %s: %w", op, t, err)
	}
	if e.Type != t {
		return &EventError{Op: op, Event: e}
	}
	return nil
}

// waitEstablishedOn waits for ESTABLISHED after a connect or an accept (op).
func waitEstablishedOn(ctx context.Context, next nextEvent, op string) (Event, error) {
	for {
		e, err := next(ctx)
		if err != nil {
			return e, fmt.Errorf("%s: waiting for ESTABLISHED: %w", op, err)
		}
		switch e.Type {
		case Established:
			return e, nil
		case ConnectResponse:
			continue // only ids without a QP see it; rdma_establish is not needed with one
		default:
			if e.Type.DeviceEvent() {
				continue // a port's or QP's news, not the connect's outcome
			}
			return e, &EventError{Op: op, Event: e}
		}
	}
}
