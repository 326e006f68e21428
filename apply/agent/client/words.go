package client

import (
	"errors"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Words is err, of a call to the agent, in a user's words: a gRPC status
// (the agent's answer, or gRPC's own for a failed connection) is said by
// its message and what to do, without gRPC's "rpc error: code = ...
// desc = ..."; another error is said as it is. It is the client's one
// translation of gRPC's errors: the CLI and apply say the agent's errors
// through it.
func Words(err error) string {
	if err == nil {
		return ""
	}
	s, ok := statusOf(err)
	if !ok {
		return err.Error()
	}
	msg := s.Message()
	switch s.Code() {
	case codes.Unavailable:
		if isTransport(msg) {
			return "the connection to the agent failed: " + transportWords(msg)
		}
		return msg // the agent's own words: "the agent is stopping"
	case codes.DeadlineExceeded:
		return "the agent did not answer in time"
	case codes.Canceled:
		return "cancelled"
	case codes.Unimplemented:
		return "the agent does not know this request (" + msg + "): it is older than this rdmaform. " +
			"Stop it (\"rdmaform agent stop\") and let plan or apply start this version's"
	case codes.Unknown, codes.Internal, codes.DataLoss:
		if isTransport(msg) {
			return "the connection to the agent failed: " + transportWords(msg)
		}
		return "the agent failed: " + msg
	}
	return msg
}

// Explain is err said in Words, still wrapping err (so that status.Code,
// errors.Is and errors.As see what it was).
func Explain(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := statusOf(err); !ok {
		return err
	}
	return &explained{words: Words(err), err: err}
}

type explained struct {
	words string
	err   error
}

func (e *explained) Error() string { return e.words }
func (e *explained) Unwrap() error { return e.err }

// statusOf is err's gRPC status when err is one itself. A status wrapped
// in other words is left as it is: whoever wrapped it said it (status.
// FromError would return the whole text, prefixes and all, as its
// message).
func statusOf(err error) (*status.Status, bool) {
	var ex *explained
	if errors.As(err, &ex) {
		return nil, false
	}
	if _, ok := err.(interface{ GRPCStatus() *status.Status }); !ok {
		return nil, false
	}
	return status.FromError(err)
}

// isTransport reports whether msg is gRPC's about the connection rather
// than the agent's.
func isTransport(msg string) bool {
	return strings.HasPrefix(msg, "connection error") || strings.Contains(msg, "transport: ") ||
		strings.HasPrefix(msg, "error reading from server") || strings.Contains(msg, "malformed header")
}

// transportWords is what matters in gRPC's words for a failed connection:
// `connection error: desc = "transport: Error while dialing: dial unix
// /run/x.sock: connect: connection refused"` is "dial unix /run/x.sock:
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
