package command

import (
	"runtime"
	"sync"
	"testing"
)

// The walk runs on one thread, and apply gives back the threads after
// it; a GOMAXPROCS the user set is kept.
func TestApplyWalksOnOneThread(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // two, as on the VM, whatever this host has
	for _, env := range []string{"", "2"} {
		t.Run("GOMAXPROCS="+env, func(t *testing.T) {
			t.Setenv("GOMAXPROCS", env)
			f := newMemFabric()
			var mu sync.Mutex
			seen := map[int]bool{}
			f.beforeCreate = func(string) {
				mu.Lock()
				defer mu.Unlock()
				seen[runtime.GOMAXPROCS(0)] = true
			}
			meta := withFabric(t, f)
			dir := planDir(t, planTestConfig)
			if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color"); code != 0 {
				t.Fatalf("apply: %d\n%s\n%s", code, out, errs)
			}
			want := 1
			if env != "" {
				want = 2
			}
			if len(seen) != 1 || !seen[want] {
				t.Errorf("GOMAXPROCS during the walk: %v, want only %d", seen, want)
			}
			if got := runtime.GOMAXPROCS(0); got != 2 {
				t.Errorf("GOMAXPROCS after apply: %d, want 2 again", got)
			}
		})
	}
}
