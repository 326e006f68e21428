package vmfabric

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A muted port (a frozen guest's) gets no frame; the others get every
// one, and then the muted port again once unmuted.
func TestHubSkipsAMutedPort(t *testing.T) {
	dir := t.TempDir()
	port := func(name string) *net.UnixConn {
		c, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: filepath.Join(dir, name), Net: "unixgram"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	a, frozen, c := port("a"), port("frozen"), port("c")
	h, err := newHub(filepath.Join(dir, "hub"), []string{filepath.Join(dir, "a"), filepath.Join(dir, "frozen"), filepath.Join(dir, "c")})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	hubAddr := &net.UnixAddr{Name: filepath.Join(dir, "hub"), Net: "unixgram"}
	send := func(frame string) {
		if _, err := a.WriteToUnix([]byte(frame), hubAddr); err != nil {
			t.Fatal(err)
		}
	}
	recv := func(conn *net.UnixConn, deadline time.Time) (string, error) {
		buf := make([]byte, 64)
		_ = conn.SetReadDeadline(deadline)
		n, _, err := conn.ReadFromUnix(buf)
		return string(buf[:n]), err
	}

	h.mute(filepath.Join(dir, "frozen"), true)
	send("one")
	send("two")
	// The hub writes to the ports in order: once c has "two", the frozen
	// port's turn for both frames has passed.
	for _, want := range []string{"one", "two"} {
		if got, err := recv(c, time.Now().Add(time.Minute)); err != nil || got != want {
			t.Fatalf("c received %q, %v; want %q", got, err, want)
		}
	}
	if got, err := recv(frozen, time.Now()); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the muted port received %q (%v); want nothing", got, err)
	}

	h.mute(filepath.Join(dir, "frozen"), false)
	send("three")
	if got, err := recv(frozen, time.Now().Add(time.Minute)); err != nil || got != "three" {
		t.Fatalf("the unmuted port received %q, %v; want \"three\"", got, err)
	}
}
