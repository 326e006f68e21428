package apply

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/planner"
)

// An operation that takes longer than the interval is reported as still
// running, as Terraform does, and never after it completed.
func TestLongOperationsSayTheyAreStillRunning(t *testing.T) {
	env := newEnv(t)
	env.still = 40 * time.Millisecond
	env.fabric.delay = 150 * time.Millisecond
	cfg := load(t, loopback)
	_, r := env.run(context.Background(), cfg, planner.Options{}, 10)
	if r.Failed() {
		t.Fatalf("apply: %+v", r)
	}
	_, r = env.run(context.Background(), cfg, planner.Options{Destroy: true}, 10)
	if r.Failed() {
		t.Fatalf("destroy: %+v", r)
	}
	still := regexp.MustCompile(`^(\S+): Still (creating|destroying)\.\.\. \[\d+s elapsed\]$`)
	seen := map[string]int{}
	done := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(env.out.String()), "\n") {
		addr, _, _ := strings.Cut(line, ": ")
		switch {
		case strings.HasSuffix(line, ": Creating...") || strings.Contains(line, ": Destroying..."):
			done[addr] = false
		case still.MatchString(line):
			m := still.FindStringSubmatch(line)
			if done[m[1]] {
				t.Errorf("%q after the operation completed", line)
			}
			seen[m[2]]++
		case strings.Contains(line, " complete after "):
			done[addr] = true
		}
	}
	// Five objects, each 150 ms against a 40 ms interval, both ways.
	if seen["creating"] < 5 || seen["destroying"] < 5 {
		t.Errorf("still lines: %v, want at least 5 of each; output:\n%s", seen, env.out.String())
	}
}

func TestShortOperationsSayNothingMore(t *testing.T) {
	env := newEnv(t)
	_, r := env.run(context.Background(), load(t, loopback), planner.Options{}, 10)
	if r.Failed() {
		t.Fatalf("apply: %+v", r)
	}
	if strings.Contains(env.out.String(), "Still ") {
		t.Errorf("an apply of quick operations says some are still running:\n%s", env.out.String())
	}
}
