package command

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/apply"
)

// apply's and destroy's help say once what -parallelism does, as the
// executor does it: given, it bounds the objects being made or removed,
// until each completes (apply.Options.HoldSlots); not given, only the
// requests in flight (apply.DefaultParallelism) are bounded. The help said
// "(default 10)" and then that without it every connect starts at once.
func TestParallelismHelpSaysOneThing(t *testing.T) {
	t.Parallel()
	without := fmt.Sprintf("Without it, at most %d requests to the agent are in flight", apply.DefaultParallelism)
	for name, help := range map[string]string{"apply": applyHelp, "destroy": destroyHelp} {
		i := strings.Index(help, "  -parallelism=N")
		if i < 0 {
			t.Fatalf("%s -help has no -parallelism", name)
		}
		// The option's text: up to the next option.
		text := help[i+2:]
		if j := strings.Index(text, "\n  -"); j >= 0 {
			text = text[:j]
		}
		flat := strings.Join(strings.Fields(text), " ")
		if !strings.Contains(flat, without) || !strings.Contains(flat, "until its") || strings.Contains(flat, "default") {
			t.Errorf("%s -help's -parallelism: %q", name, flat)
		}
		if n := len(regexp.MustCompile(`\b10\b`).FindAllString(flat, -1)); n != 1 {
			t.Errorf("%s -help's -parallelism names 10 %d times: %q", name, n, flat)
		}
	}
}
