package render

import (
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/planner"
)

const withOptions = `
listener "l" {
  address = "10.77.0.1"
  port    = 7471
  options {
    ack_timeout = 14
  }
}

endpoint "e" {
  address = "10.77.0.1"
  port    = 7471
  options {
    type_of_service = 106
    ack_timeout     = 14
  }
}
`

// A plan shows the options blocks; a change of any option replaces the
// object (it was set before the bind or the route, which a live id is past).
func TestHumanOptions(t *testing.T) {
	p := plan(t, load(t, withOptions), nil, planner.Options{})
	out := human(p)
	for _, want := range []string{
		"      + options {\n          + ack_timeout     = 14\n          + type_of_service = 106\n        }\n",
		"      + options {\n          + ack_timeout = 14\n        }\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("create lacks %q:\n%s", want, out)
		}
	}
	st := applied(t, p)
	src := strings.Replace(withOptions, "type_of_service = 106", "type_of_service = 96", 1)
	src = strings.Replace(src, "  options {\n    ack_timeout = 14\n  }\n", "", 1) // the listener's block goes
	out = human(plan(t, load(t, src), st, planner.Options{}))
	for _, want := range []string{
		"  # endpoint.e must be replaced\n",
		"          ~ type_of_service = 106 -> 96 # forces replacement\n",
		"  # listener.l must be replaced\n",
		"      - options { # forces replacement\n",
		"Plan: 2 to add, 0 to change, 2 to destroy.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("change lacks %q:\n%s", want, out)
		}
	}
}

// responder_resources and initiator_depth left out are null in the plan
// (the agent takes the device's limits); a state that recorded a value,
// such as the 1 that was the default, is replaced to connect again.
func TestHumanRdAtomsLeftOut(t *testing.T) {
	src := strings.Replace(withOptions, "port    = 7471\n  options {\n    type_of_service", "port    = 7471\n  connect {\n    initiator_depth = 1\n  }\n  options {\n    type_of_service", 1)
	p := plan(t, load(t, src), nil, planner.Options{})
	out := human(p)
	if strings.Contains(out, "responder_resources") || !strings.Contains(out, "+ initiator_depth = 1\n") {
		t.Errorf("create: responder_resources left out must not show, initiator_depth = 1 must:\n%s", out)
	}
	out = human(plan(t, load(t, withOptions), applied(t, p), planner.Options{}))
	if !strings.Contains(out, "- initiator_depth = 1 -> null # forces replacement\n") {
		t.Errorf("leaving out initiator_depth must replace:\n%s", out)
	}
}
