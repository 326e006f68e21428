package client

import (
	"fmt"
	"os"
	"path/filepath"
)

// DefaultSocket is where the agent listens unless told otherwise:
// /run/rdmaform/agent.sock for root, $XDG_RUNTIME_DIR/rdmaform/agent.sock
// for other users, or /tmp/rdmaform-UID/agent.sock when XDG_RUNTIME_DIR is
// unset.
func DefaultSocket() string {
	if os.Geteuid() == 0 {
		return "/run/rdmaform/agent.sock"
	}
	if dir := os.Getenv("XDG_RUNTIME_DIR"); dir != "" {
		return filepath.Join(dir, "rdmaform", "agent.sock")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("rdmaform-%d", os.Geteuid()), "agent.sock")
}

// ChooseSocket picks the agent's socket as every client command does: the
// -agent flag first, then the rdmaform { agent { socket = ... } } setting,
// then DefaultSocket.
func ChooseSocket(flagValue, configured string) string {
	switch {
	case flagValue != "":
		return flagValue
	case configured != "":
		return configured
	}
	return DefaultSocket()
}
