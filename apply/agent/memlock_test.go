//go:build linux && cgo && integration

package agent_test

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestAgentRaisesTheMemlockLimit starts an agent with a locked-memory limit
// of 64 KiB (soft and hard, as a stingy default would give it) and checks
// that the agent, privileged in the testbed, runs with no limit.
func TestAgentRaisesTheMemlockLimit(t *testing.T) {
	var orig unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_MEMLOCK, &orig); err != nil {
		t.Fatal(err)
	}
	low := unix.Rlimit{Cur: 64 << 10, Max: 64 << 10}
	if err := unix.Setrlimit(unix.RLIMIT_MEMLOCK, &low); err != nil {
		t.Fatal(err)
	}
	p := startAgent(t) // inherits the low limit
	if err := unix.Setrlimit(unix.RLIMIT_MEMLOCK, &orig); err != nil {
		t.Fatalf("restoring this process's limit (needs root, as the testbed is): %v", err)
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(p.pid()) + "/limits")
	if err != nil {
		t.Fatal(err)
	}
	var line string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "Max locked memory") {
			line = l
		}
	}
	if f := strings.Fields(line); len(f) < 5 || f[3] != "unlimited" || f[4] != "unlimited" {
		t.Errorf("the agent's limit: %q, want unlimited (it started with 64 KiB)", line)
	}
	if !strings.Contains(p.log(t), "locked-memory limit") {
		t.Errorf("the agent's log does not say its locked-memory limit:\n%s", p.log(t))
	}
}
