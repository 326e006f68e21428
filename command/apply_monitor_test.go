package command

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"
)

// stdoutTTY, as a Meta's StdoutTerminal, makes the commands believe
// standard output is a terminal the monitor can draw on.
func stdoutTTY(io.Writer) bool { return true }

// within runs f and fails the test when f has not returned after 30 s: a
// monitor drawn where nobody sees it waits for a q that never comes.
func within(t *testing.T, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("still running after 30 s: waiting in the monitor?")
	}
}

func TestApplyMonitorNeedsATerminal(t *testing.T) {
	t.Parallel()
	meta := Meta{StdoutTerminal: stdoutTTY}
	// A saved plan is refused as well, before it is read.
	for _, args := range [][]string{{"apply", "-auto-approve", "-monitor"}, {"apply", "-monitor", "no-such.plan"}} {
		var out, errb bytes.Buffer
		code := run(args, meta.streams(strings.NewReader(""), &out, &errb))
		if code != 1 || !strings.Contains(errb.String(), "-monitor needs a terminal") {
			t.Fatalf("%q: exit %d, stderr %q", args, code, errb.String())
		}
	}
}

// With standard output redirected, apply -monitor and destroy -monitor
// say the monitor is skipped and print their usual progress instead of
// drawing the monitor into the file.
func TestApplyMonitorIsSkippedWhenStandardOutputIsNoTerminal(t *testing.T) {
	f := newMemFabric()
	meta := withFabric(t, f)
	meta.StdinTerminal = stdinTTY
	dir := planDir(t, planTestConfig)
	const note = "Note: -monitor is skipped: standard output is not a terminal.\n"

	var code int
	var out, errs string
	within(t, func() { code, out, errs = meta.cmd(t, dir, "", "apply", "-auto-approve", "-monitor", "-no-color") })
	if code != 0 || !strings.Contains(errs, note) || strings.Count(errs, "\n") != 1 {
		t.Fatalf("apply: exit %d, stderr %q", code, errs)
	}
	for _, want := range []string{"endpoint.client[1]: Creation complete after ", "Apply complete! Resources: 4 added"} {
		if !strings.Contains(out, want) {
			t.Errorf("apply's output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b[") {
		t.Errorf("apply drew the monitor into its output: %q", out)
	}
	if len(f.live) != 4 {
		t.Errorf("live %v after apply", f.live)
	}

	within(t, func() { code, out, errs = meta.cmd(t, dir, "", "destroy", "-auto-approve", "-monitor", "-no-color") })
	if code != 0 || !strings.Contains(errs, note) || !strings.Contains(out, "Destroy complete! Resources: 4 destroyed.") {
		t.Fatalf("destroy: exit %d\n%s\n%s", code, out, errs)
	}
	if len(f.live) != 0 {
		t.Errorf("live %v after destroy", f.live)
	}
}

// On a dumb terminal (TERM=dumb), apply -monitor skips the monitor, whose
// cursor controls would be garbage there, and prints its usual progress.
func TestApplyMonitorIsSkippedOnADumbTerminal(t *testing.T) {
	meta := withFabric(t, newMemFabric())
	meta.StdinTerminal = stdinTTY
	meta.StdoutTerminal = stdoutTTY
	t.Setenv("TERM", "dumb")
	dir := planDir(t, planTestConfig)
	var code int
	var out, errs string
	within(t, func() { code, out, errs = meta.cmd(t, dir, "", "apply", "-auto-approve", "-monitor", "-no-color") })
	if code != 0 || !strings.Contains(errs, "Note: -monitor is skipped: the terminal is dumb (TERM=dumb).") ||
		!strings.Contains(out, "Apply complete! Resources: 4 added") || strings.Contains(out, "\x1b[") {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errs)
	}
}
