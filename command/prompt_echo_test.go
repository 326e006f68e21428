package command

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// echoed types line into the terminal, lets ask read it, and returns what
// the terminal showed back of it.
func echoed(t *testing.T, sensitive bool, line string) (string, string) {
	t.Helper()
	master, slave := openPTY(t)
	var out bytes.Buffer
	ask := askVariable(Meta{In: slave, Out: &out, Err: &out}, make(chan struct{}))
	got := make(chan string, 1)
	go func() {
		v, _ := ask("pw", "", sensitive)
		got <- v
	}()
	time.Sleep(100 * time.Millisecond) // the prompt turns the echo off first
	master.Write([]byte(line + "\n"))
	value := <-got
	// What the terminal echoed, read for a moment without blocking (the
	// pseudo-terminal takes no read deadline).
	fd := int(master.Fd())
	if err := unix.SetNonblock(fd, true); err != nil {
		t.Fatal(err)
	}
	var shown []byte
	buf := make([]byte, 256)
	for deadline := time.Now().Add(300 * time.Millisecond); time.Now().Before(deadline); {
		if n, err := unix.Read(fd, buf); err == nil && n > 0 {
			shown = append(shown, buf[:n]...)
			continue
		}
		time.Sleep(10 * time.Millisecond)
	}
	return value, string(shown)
}

// As Terraform's prompt: a sensitive variable's value is not shown as it
// is typed, another's is; the terminal's echo is back on afterwards.
func TestPromptHidesWhatIsTypedForASensitiveVariable(t *testing.T) {
	t.Parallel()
	value, shown := echoed(t, true, "hunter2")
	if value != "hunter2" || strings.Contains(shown, "hunter2") {
		t.Errorf("sensitive: read %q, the terminal showed %q", value, shown)
	}
	value, shown = echoed(t, false, "visible")
	if value != "visible" || !strings.Contains(shown, "visible") {
		t.Errorf("not sensitive: read %q, the terminal showed %q", value, shown)
	}
	_, slave := openPTY(t)
	restore := withoutEcho(slave)
	restore()
	if tio, err := unix.IoctlGetTermios(int(slave.Fd()), unix.TCGETS); err != nil || tio.Lflag&unix.ECHO == 0 {
		t.Errorf("the echo is not back on: %v", err)
	}
}
