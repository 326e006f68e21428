package command

import (
	"strings"
	"testing"
)

// apply -auto-approve renders its plan while the walk starts; what it
// prints must be what it printed when it rendered first: the plan, whole
// and as plan shows it, then the progress lines.
func TestAutoApprovePrintsThePlanBeforeProgress(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	dir := planDir(t, planTestConfig)
	code, planned, errs := meta.cmd(t, dir, "", "plan", "-no-color")
	if code != 0 {
		t.Fatalf("plan: %d\n%s", code, errs)
	}
	code, out, errs := meta.cmd(t, dir, "", "apply", "-auto-approve", "-no-color")
	if code != 0 {
		t.Fatalf("apply: %d\n%s\n%s", code, out, errs)
	}
	// plan ends with its note about -out; apply's plan ends at the summary.
	head := planned[:strings.Index(planned, "Plan: 4 to add")]
	if !strings.HasPrefix(out, head) {
		t.Fatalf("apply's output does not start with the plan\nplan:\n%s\napply:\n%s", planned, out)
	}
	summary := strings.Index(out, "Plan: 4 to add, 0 to change, 0 to destroy.")
	creating := strings.Index(out, ": Creating...")
	complete := strings.Index(out, "Apply complete! Resources: 4 added")
	if summary < 0 || creating < summary || complete < creating {
		t.Fatalf("plan summary at %d, first progress line at %d, completion at %d:\n%s", summary, creating, complete, out)
	}
}

// A progress buffer holding lines for a plan still rendering writes them
// once it is rendered, after it, on the timer as on Flush.
func TestProgressWaitsForThePlanText(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	b := newProgressBuffer(&out)
	head := &planText{done: make(chan struct{})}
	b.after(head)
	b.Write([]byte("endpoint.e[0]: Creating...\n"))
	b.flushLater()
	b.mu.Lock()
	early := out.String()
	b.mu.Unlock()
	if early != "" {
		t.Fatalf("wrote %q before the plan was rendered", early)
	}
	head.buf.WriteString("Plan: 1 to add, 0 to change, 0 to destroy.\n")
	close(head.done)
	b.Flush()
	if want := "Plan: 1 to add, 0 to change, 0 to destroy.\nendpoint.e[0]: Creating...\n"; out.String() != want {
		t.Fatalf("got %q, want %q", out.String(), want)
	}
}
