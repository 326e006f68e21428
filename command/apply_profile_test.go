package command

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// RDMAFORM_TRACE gets every phase of an apply, those after the plan
// included (the session hands the trace to the walk).
func TestApplyTraceHasEveryPhase(t *testing.T) {
	meta := withFabric(t, newMemFabric())
	file := filepath.Join(t.TempDir(), "trace")
	t.Setenv(traceEnv, file)
	dir := planDir(t, planTestConfig)
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color"); code != 0 {
		t.Fatalf("apply: %d\n%s%s", code, out, errs)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	last := 0
	for _, phase := range []string{"apply starts", "session open", "planned", "plan printed", "recorder open", "walk done", "state saved", "end"} {
		i := strings.Index(string(b[last:]), " "+phase)
		if i < 0 {
			t.Fatalf("no %q after the earlier phases in the trace:\n%s", phase, b)
		}
		last += i
	}
}
