package state

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
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
			// Perhaps TLS, rather than etcd, failed (etcd_tls.go), or
			// the endpoint is no etcd.
			if terr := e.probeTLS(); terr != nil {
				return terr
			}
			if nerr := e.probePlain(); nerr != nil {
				return nerr
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

// notAnswering says what a failed request's error means, in words rather
// than gRPC's ("rpc error: code = ... desc = ..."): etcd did not answer
// (*EtcdUnreachable), the server is not etcd (*NotEtcdError), or etcd's
// own message. It is the one place gRPC's errors of etcd are translated.
func (e *Etcd) notAnswering(err error) error {
	var unreachable *EtcdUnreachable
	var notEtcd *NotEtcdError
	if err == nil || errors.As(err, &unreachable) || errors.As(err, &notEtcd) {
		return err
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &EtcdUnreachable{Endpoints: e.opts.Endpoints, Err: err}
	}
	s, ok := status.FromError(err)
	switch {
	case !ok:
		return err
	case s.Code() == codes.DeadlineExceeded:
		return &EtcdUnreachable{Endpoints: e.opts.Endpoints, Err: err}
	case s.Code() == codes.Unavailable:
		return &EtcdUnreachable{Endpoints: e.opts.Endpoints, Lost: transportWords(s.Message()), Err: err}
	case s.Code() == codes.Unimplemented || strings.Contains(s.Message(), "malformed header") ||
		strings.Contains(s.Message(), "unexpected HTTP status code"):
		// A gRPC server without etcd's services, or an HTTP server
		// (gRPC reads its 404 as Unimplemented).
		return &NotEtcdError{Endpoints: e.opts.Endpoints, Err: err}
	}
	return &etcdSaid{msg: s.Message(), err: err}
}

// EtcdUnreachable is a request etcd did not answer: it is stopped,
// unreachable from here, or without a quorum.
type EtcdUnreachable struct {
	Endpoints []string
	// Lost is the transport's words for a refused or lost connection; ""
	// when the request timed out.
	Lost string
	Err  error
}

func (e *EtcdUnreachable) Error() string {
	if e.Lost == "" {
		return "etcd did not answer in time (stopped, unreachable, or without a quorum)"
	}
	return "etcd is unreachable (stopped, or the connection to it lost: " + e.Lost + ")"
}

func (e *EtcdUnreachable) Unwrap() error { return e.Err }

// Advice is what to check, naming the endpoints.
func (e *EtcdUnreachable) Advice() string {
	eps := strings.Join(e.Endpoints, ",")
	return fmt.Sprintf("Check that etcd runs at %s\n"+
		"and that this host reaches it (address, port, http or https, firewall),\n"+
		"and that its cluster has a quorum:\n"+
		"  etcdctl --endpoints=%s endpoint health", eps, eps)
}

// NotEtcdError is an endpoint that answered, but not as etcd: another
// gRPC or HTTP server, or https where etcd serves http.
type NotEtcdError struct {
	Endpoints []string
	Err       error
}

func (e *NotEtcdError) Error() string {
	return strings.Join(e.Endpoints, ",") + " does not speak etcd's protocol (is it an etcd client URL? http vs https?)"
}

func (e *NotEtcdError) Unwrap() error { return e.Err }

// etcdSaid is an error etcd answered, said in its own words.
type etcdSaid struct {
	msg string
	err error
}

func (e *etcdSaid) Error() string { return "etcd answered: " + e.msg }
func (e *etcdSaid) Unwrap() error { return e.err }

// transportWords is what matters in gRPC's words for a failed connection:
// `connection error: desc = "transport: Error while dialing: dial tcp
// 127.0.0.1:1: connect: connection refused"` is "dial tcp 127.0.0.1:1:
// connect: connection refused".
func transportWords(msg string) string {
	if i := strings.LastIndex(msg, "desc = "); i >= 0 {
		msg = strings.Trim(msg[i+len("desc = "):], `"`)
	}
	for _, p := range []string{"transport: Error while dialing: ", "transport: "} {
		msg = strings.TrimPrefix(msg, p)
	}
	return msg
}

// probePlain opens each endpoint spoken to without TLS as gRPC does (the
// HTTP/2 preface) and returns a *NotEtcdError for the first whose answer
// is no HTTP/2 (a TLS server's alert or an HTTP/1 reply: https where
// http was written, or another server), or nil. Such a server holds
// gRPC's requests until they time out, "etcd did not answer in time",
// although it is there.
func (e *Etcd) probePlain() error {
	for _, ep := range e.opts.Endpoints {
		addr, _, secure := tlsEndpoint(ep, e.tls != nil)
		if secure || strings.Contains(ep, "://") && !strings.HasPrefix(ep, "http://") {
			continue
		}
		conn, err := net.DialTimeout("tcp", addr, tlsProbeTimeout)
		if err != nil {
			continue // nothing there: unreachable, as said
		}
		conn.SetDeadline(time.Now().Add(tlsProbeTimeout))
		_, err = conn.Write([]byte(http2Preface))
		head := make([]byte, 9) // an HTTP/2 frame's header
		n := 0
		if err == nil {
			n, err = io.ReadFull(conn, head)
		}
		conn.Close()
		// An HTTP/2 server answers with a SETTINGS frame (type 4); one
		// that answered anything else, or closed the connection without
		// a word (a TLS server, which takes the preface for a bad
		// record), is not etcd. No answer in time says nothing: etcd
		// may just be slow.
		var ne net.Error
		closed := n == 0 && err != nil && !(errors.As(err, &ne) && ne.Timeout())
		if closed || n > 0 && (n < 4 || head[3] != 0x4) {
			return &NotEtcdError{Endpoints: []string{ep}, Err: fmt.Errorf("%s answered %q to HTTP/2 (%v)", ep, head[:n], err)}
		}
	}
	return nil
}

// http2Preface is what an HTTP/2 client sends first (RFC 9113, 3.4).
const http2Preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
