package client

import (
	"context"
	"path/filepath"
	"testing"
)

// MayStart false: nothing is started, and the error says none answers.
func TestConnectStartsNothingWhenMayStartSaysNo(t *testing.T) {
	socket := filepath.Join(t.TempDir(), "agent.sock")
	asked := 0
	_, err := Connect(context.Background(), socket, StartOptions{
		Executable: filepath.Join(t.TempDir(), "no-such-rdmaform"),
		MayStart:   func() bool { asked++; return false },
	})
	if err == nil || !IsNotRunning(err) {
		t.Fatalf("Connect = %v, want the dial's not-running error", err)
	}
	if asked != 1 {
		t.Errorf("MayStart asked %d times, want 1", asked)
	}
}
