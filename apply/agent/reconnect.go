package agent

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/rdmacm"
)

// An operator's "reconnect now" (the Reconnect call, the monitor's `r`):
// an endpoint makes its connection again at once rather than at its
// back-off's pace, and a listener's accepted connection is ended so that
// its client makes it again. What has no connection of its own is
// refused, saying why.

// cannotReconnect is a Reconnect that does not apply to the object as it
// is: FAILED_PRECONDITION.
type cannotReconnect struct{ msg string }

func (e *cannotReconnect) Error() string { return e.msg }

// Reconnect makes address's connection again at once, and says what it
// did.
func (a *Agent) Reconnect(addr string) (string, error) {
	o := a.reg.get(addr)
	if o == nil {
		return "", &notFound{fmt.Sprintf("%s does not exist on this agent (it may have been deleted or replaced: refresh the view)", addr)}
	}
	if o.kind == pb.Kind_LISTENER {
		return "", &cannotReconnect{fmt.Sprintf("%s is a listener: it has no connection of its own to make again; reconnect one of its accepted connections (%s/conn/N) or the endpoint at its other end", addr, addr)}
	}
	switch impl := o.impl.(type) {
	case *endpoint:
		return impl.reconnectNow()
	case *connection:
		if impl.id.Connectionless() {
			return "", &cannotReconnect{fmt.Sprintf("%s is a UD listener's client: there is no connection to end", addr)}
		}
		o.event(o.status(), "disconnect requested", "by an operator, so that its client connects again")
		a.log.Info("connection disconnected on request", "object", addr)
		impl.stop()
		return fmt.Sprintf("%s is disconnected: the endpoint at the other end connects again by its reconnect policy (one without a policy stays disconnected)", addr), nil
	default:
		return "", &cannotReconnect{fmt.Sprintf("%s is a %s: it has no connection to make again", addr, kindName(o.kind))}
	}
}

// reconnectNow asks the endpoint's lifecycle (run) to end the current
// connection, if any, and connect again at once, its back-off reset. An
// endpoint on its way to a connection is refused: the connect under way
// is what a reconnect would start.
func (e *endpoint) reconnectNow() (string, error) {
	addr := e.obj.address
	switch e.obj.status() {
	case pb.Status_CREATING, pb.Status_CONNECTING:
		return "", &cannotReconnect{fmt.Sprintf("%s is connecting already: wait for the outcome of the connect under way, then ask again", addr)}
	}
	select {
	case e.again <- struct{}{}:
	default: // asked already, and not yet taken: once is enough
	}
	e.obj.agent.log.Info("reconnect requested", "object", addr)
	return fmt.Sprintf("%s connects again now", addr), nil
}

// watchAgain ends the session (stop) when an operator asks to connect
// again, and closes the channel it returns to say so. It returns once
// ctx ends otherwise.
func (e *endpoint) watchAgain(ctx context.Context, stop context.CancelFunc) <-chan struct{} {
	asked := make(chan struct{})
	go func() {
		select {
		case <-e.again:
			close(asked)
			stop()
		case <-ctx.Done():
		}
	}()
	return asked
}

// endAsked ends the session's connection on an operator's request, saying
// so.
func (e *endpoint) endAsked(id *rdmacm.ID) {
	facts := factsOf(id)
	disconnect(id)
	e.obj.change(func(s *state) {
		if facts != nil {
			s.facts = facts
		}
		s.record(pb.Status_DISCONNECTED, "reconnect requested", "disconnected by an operator, to connect again at once")
	})
}

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// Reconnect serves the call: a refusal is FAILED_PRECONDITION, with the
// agent's words.
func (s *service) Reconnect(_ context.Context, r *pb.ReconnectRequest) (*pb.ReconnectResponse, error) {
	done, err := s.agent.Reconnect(r.Address)
	var no *cannotReconnect
	switch {
	case errors.As(err, &no):
		return nil, status.Error(codes.FailedPrecondition, no.msg)
	case err != nil:
		return nil, grpcError(err)
	}
	return &pb.ReconnectResponse{Done: done}, nil
}
