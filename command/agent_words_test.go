package command

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// gRPC's words, which no message may hold.
func saysGRPC(s string) bool {
	return strings.Contains(s, "rpc error:") || strings.Contains(s, "code = ") || strings.Contains(s, "desc = ")
}

// Whatever code the agent answers with, agent status and status say it in
// words: not "rpc error: code = Unavailable desc = ...", nor a code's name
// in brackets.
func TestAgentErrorsOfEveryCodeAreSaidInWords(t *testing.T) {
	t.Parallel()
	for c := codes.Canceled; c <= codes.Unauthenticated; c++ {
		f := &fakeAgent{fail: status.Error(c, "the agent's words")}
		socket := serveFakeAgent(t, f)
		for _, args := range [][]string{{"agent", "status", "-socket=" + socket}, {"status", "-agent=" + socket}, {"status", "-json", "-agent=" + socket}} {
			var out, errb bytes.Buffer
			code := run(args, Meta{In: strings.NewReader(""), Out: &out, Err: &errb})
			if code != 1 || saysGRPC(errb.String()) || strings.Contains(errb.String(), "("+c.String()+")") || errb.Len() == 0 {
				t.Errorf("%v answering %v: exit code %d, stderr %q", args, c, code, errb.String())
			}
		}
	}
}

// No agent, or something not an agent on the socket: said without gRPC's
// words, by agent status and agent stop alike.
func TestAgentStatusWithoutAnAgentSaysSoInWords(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	missing := filepath.Join(dir, "agent.sock")
	for _, args := range [][]string{{"agent", "status", "-socket=" + missing}} {
		var out, errb bytes.Buffer
		code := run(args, Meta{In: strings.NewReader(""), Out: &out, Err: &errb})
		if code != 1 || saysGRPC(errb.String()) || !strings.Contains(errb.String(), "no rdmaform agent answers at "+missing+": the connection to the agent failed: dial unix "+missing) {
			t.Errorf("%v: exit code %d, stderr %q", args, code, errb.String())
		}
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("agent status made the socket")
	}
}
