package command

import (
	"strings"
	"syscall"
	"testing"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
)

// Ctrl-C ends status -watch with exit status 0, as its help says (it died
// of the signal, 130). Not parallel: the signal goes to the whole test
// process, as TestSecondInterruptExitsAtOnce's.
func TestStatusWatchEndsOnInterruptWithZero(t *testing.T) {
	f := &fakeAgent{
		objects: []*pb.Object{{Address: "endpoint.a", Kind: pb.Kind_ENDPOINT, Status: pb.Status_ESTABLISHED}},
		hold:    true,
	}
	socket := serveFakeAgent(t, f)
	var out, errb lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"status", "-watch", "-agent=" + socket}, Meta{In: strings.NewReader(""), Out: &out, Err: &errb})
	}()
	// The table is printed once the signals are caught.
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(string(out.Bytes()), "1 object: 1 established"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no table after 30 s:\n%s\n%s", out.Bytes(), errb.Bytes())
		}
	}
	syscall.Kill(syscall.Getpid(), syscall.SIGINT)
	select {
	case code := <-done:
		if code != 0 || len(errb.Bytes()) != 0 {
			t.Errorf("exit status %d, stderr %q", code, errb.Bytes())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("status -watch still runs 30 s after Ctrl-C")
	}
}
