package client

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Every code the agent or gRPC may answer is said without gRPC's words;
// a failed connection by the transport's words only.
func TestWordsLeaveOutGRPC(t *testing.T) {
	t.Parallel()
	for c := codes.OK + 1; c <= codes.Unauthenticated; c++ {
		err := status.Error(c, "the agent's words")
		w := Words(err)
		if strings.Contains(w, "rpc error:") || strings.Contains(w, "code = ") || strings.Contains(w, "desc = ") || strings.Contains(w, c.String()) {
			t.Errorf("%v: %q", c, w)
		}
		if ex := Explain(err); ex.Error() != w || status.Code(ex) != c {
			t.Errorf("%v: Explain %q (%v)", c, ex, status.Code(ex))
		}
	}
	dial := status.Error(codes.Unavailable, `connection error: desc = "transport: Error while dialing: dial unix /run/x.sock: connect: connection refused"`)
	if w := Words(dial); w != "the connection to the agent failed: dial unix /run/x.sock: connect: connection refused" {
		t.Errorf("dial: %q", w)
	}
	nr := &NotRunning{Socket: "/run/x.sock", Err: dial}
	if got := nr.Error(); got != "no rdmaform agent answers at /run/x.sock: the connection to the agent failed: dial unix /run/x.sock: connect: connection refused" {
		t.Errorf("not running: %q", got)
	}
	if other := errors.New("x"); Explain(other) != other || Words(fmt.Errorf("wrapped: %w", dial)) != fmt.Errorf("wrapped: %w", dial).Error() {
		t.Error("an error that is no status itself is changed")
	}
}
