package render

import (
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/planner"
)

const probeModeConfig = `
listener "l" {
  address = "10.77.0.1"
  port    = 7471
  qp {}
  accept {
    echo = true
  }
}

endpoint "e" {
  address = listener.l.address
  port    = listener.l.port
  qp {}
  probe {
    mode = "write"
  }
}
`

// The plan shows the probe's mode, and a change of mode is made in place:
// the agent's prober serves every mode on the connection it has.
func TestPlanShowsTheProbeModeAndChangesItInPlace(t *testing.T) {
	cfg := load(t, probeModeConfig)
	p := plan(t, cfg, nil, planner.Options{})
	if got := human(p); !strings.Contains(got, `+ mode     = "write"`) {
		t.Errorf("the create does not show the mode:\n%s", got)
	}
	st := applied(t, p)
	got := human(plan(t, load(t, strings.Replace(probeModeConfig, `"write"`, `"read"`, 1)), st, planner.Options{}))
	for _, want := range []string{`~ mode = "write" -> "read"`, "endpoint.e will be updated in-place", "Plan: 0 to add, 1 to change, 0 to destroy."} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
}
