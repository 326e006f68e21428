package command

import (
	"strings"
	"testing"
)

func srqPlanConfig(srq string) string {
	return `
listener "many" {
  address = "10.77.0.1"
  port    = 7471
  qp {}
` + srq + `
  accept { echo = true }
}
`
}

// The plan shows a listener's srq block; adding it, changing it and
// removing it each replace the listener (its connections' QPs were made
// on the SRQ).
func TestPlanSRQBlockForcesReplacement(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	dir := planDir(t, srqPlanConfig("  srq { max_recv_wr = 512 }"))
	code, out, errs := meta.cmd(t, dir, "", "plan", "-no-color")
	if code != 0 {
		t.Fatalf("plan: %d\n%s\n%s", code, out, errs)
	}
	for _, w := range []string{"+ srq {", "+ max_recv_wr  = 512", "+ max_recv_sge = 1"} {
		if !strings.Contains(out, w) {
			t.Errorf("the plan lacks %q:\n%s", w, out)
		}
	}
	if code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color"); code != 0 {
		t.Fatalf("apply: %d\n%s\n%s", code, out, errs)
	}
	for _, tc := range []struct {
		name, srq string
		want      []string
	}{
		{"resized", "  srq { max_recv_wr = 1024 }", []string{"# listener.many must be replaced", "~ srq {", "~ max_recv_wr = 512 -> 1024 # forces replacement"}},
		{"removed", "", []string{"# listener.many must be replaced", "- srq { # forces replacement"}},
	} {
		writeConfig(t, dir, srqPlanConfig(tc.srq))
		code, out, errs := meta.cmd(t, dir, "", "plan", "-no-color", "-detailed-exitcode")
		if code != 2 {
			t.Fatalf("%s: plan: %d\n%s\n%s", tc.name, code, out, errs)
		}
		for _, w := range append(tc.want, "Plan: 1 to add, 0 to change, 1 to destroy.") {
			if !strings.Contains(out, w) {
				t.Errorf("%s: the plan lacks %q:\n%s", tc.name, w, out)
			}
		}
	}
}
