package state

import (
	"context"
	"errors"
	"fmt"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// An etcd that stops answering (stopped, partitioned, without a quorum)
// costs each request its whole timeout, and a command that failed on it
// still flushes its journal, saves the state and releases its lock, one
// after the other: an apply took about 85 s to give up. Once a request
// found etcd not answering, the following ones wait at most
// unansweredWait, until one is answered again.
const unansweredWait = time.Second

// watchAnswers is a gRPC interceptor noting whether etcd answers each
// request: one that timed out or found no server marks etcd unanswering;
// any answer, an error included, clears it.
func (e *Etcd) watchAnswers(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	err := invoker(ctx, method, req, reply, cc, opts...)
	switch status.Code(err) {
	case codes.DeadlineExceeded, codes.Unavailable:
		e.unanswered.Store(true)
		if !e.answered.Load() {
			// Perhaps TLS, rather than etcd, failed (etcd_tls.go).
			if terr := e.probeTLS(); terr != nil {
				return terr
			}
		}
	case codes.Canceled:
	default:
		e.unanswered.Store(false)
		e.answered.Store(true)
	}
	return err
}

// wait is how long a request may wait for etcd: full, or unansweredWait
// while etcd is not answering.
func (e *Etcd) wait(full time.Duration) time.Duration {
	if e.unanswered.Load() {
		return min(full, unansweredWait)
	}
	return full
}

// notAnswering says what a request's timeout or a lost connection
// means, in words rather than gRPC's: etcd did not answer.
func notAnswering(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("etcd did not answer in time (stopped, unreachable, or without a quorum): %w", err)
	}
	if s, ok := status.FromError(err); ok && s.Code() == codes.Unavailable {
		return &unreachableError{detail: s.Message(), err: err}
	}
	return err
}

// unreachableError is a request etcd could not be reached for (its
// connection refused or lost), said without gRPC's status text.
type unreachableError struct {
	detail string
	err    error
}

func (e *unreachableError) Error() string {
	return "etcd is unreachable (stopped, or the connection to it lost: " + e.detail + ")"
}

func (e *unreachableError) Unwrap() error { return e.err }
