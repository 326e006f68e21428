package command

import (
	"strings"
	"testing"
	"time"
)

// Progress lines reach the output within progressDelay, or at once on
// Flush, whole and in order.
func TestProgressBufferWritesLinesSoon(t *testing.T) {
	t.Parallel()
	var out lockedBuffer
	b := newProgressBuffer(&out)
	b.Write([]byte("a: Creating...\n"))
	b.Write([]byte("b: Creating...\n"))
	if len(out.Bytes()) != 0 {
		t.Fatal("written before the delay")
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(out.Bytes()) == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	b.Write([]byte("a: Creation complete after 1ms [id=a]\n"))
	b.Flush()
	if got := string(out.Bytes()); got != "a: Creating...\nb: Creating...\na: Creation complete after 1ms [id=a]\n" {
		t.Fatalf("%q", got)
	}
	b.Write([]byte(strings.Repeat("x", 70<<10) + "\n"))
	if len(out.Bytes()) < 70<<10 {
		t.Fatal("a full buffer was not written at once")
	}
}
