package apply

import (
	"bytes"
	"strings"
	"testing"
)

// A progress line may hold the agent's words (a cancelled create's error,
// an import's id): it reaches the terminal escaped, its event as it was
// (-json escapes it its own way).
func TestProgressLinesAreEscaped(t *testing.T) {
	var out bytes.Buffer
	var got Event
	e := &executor{Options: Options{Progress: &out, Events: func(ev Event) { got = ev }}}
	msg := "endpoint.e: Creation cancelled after 1s (rdma_connect: rejected: go away\x1b]0;owned\x07)"
	e.emit(Event{Type: EventCancelled, Message: msg})
	if strings.ContainsAny(out.String(), "\x1b\x07") || !strings.Contains(out.String(), `go away\x1b]0;owned\a)`) {
		t.Errorf("progress line %q", out.String())
	}
	if got.Message != msg {
		t.Errorf("the event's message changed: %q", got.Message)
	}
}
