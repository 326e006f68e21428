//go:build integration

package command

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestDemoSteps runs scripts/demo-steps, what the README's main-job
// command (scripts/demo) runs in the VM, with this binary as rdmaform on
// examples/loopback: each step succeeds and shows what the README says.
// Its transcript is kept in test-artifacts/demo.txt.
func TestDemoSteps(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	repo, _ := filepath.Abs("..") // the repository: tests run in command/
	bin := filepath.Join(t.TempDir(), "rdmaform")
	if err := os.Symlink(exe, bin); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), asCLIEnv+"=1")
	t.Cleanup(func() {
		// A failed step leaves the demo's agent running: stop it.
		stop := exec.Command(bin, "agent", "stop", "-force")
		stop.Env = env
		stop.Run()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	demo := exec.CommandContext(ctx, filepath.Join(repo, "scripts", "demo-steps"), bin, filepath.Join(repo, "examples", "loopback"))
	demo.Env = env
	out, err := demo.CombinedOutput()
	os.MkdirAll(filepath.Join(repo, "test-artifacts"), 0o755)
	os.WriteFile(filepath.Join(repo, "test-artifacts", "demo.txt"), out, 0o644)
	transcript := string(out)
	if err != nil {
		t.Fatalf("scripts/demo-steps: %v\n%s", err, transcript)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^Plan: 6 to add, 0 to change, 0 to destroy\.$`),
		regexp.MustCompile(`(?m)^endpoint\.client\[3\]: Creation complete after \S+ \[qp_num=\d+\]$`),
		regexp.MustCompile(`(?m)^Apply complete! Resources: 6 added, 0 changed, 0 destroyed\.$`),
		regexp.MustCompile(`(?m)^endpoint\.client\[0\]\s.*ESTABLISHED`),
		regexp.MustCompile(`(?m)^\$ rdmaform monitor`),
		regexp.MustCompile(`No changes\. Your fabric matches the configuration\.`),
		regexp.MustCompile(`(?m)^\(exit code 0: 0 means no changes\)$`),
		regexp.MustCompile(`(?m)^Destroy complete! Resources: 6 destroyed\.$`),
	} {
		if !want.MatchString(transcript) {
			t.Errorf("the demo's transcript lacks %q:\n%s", want, transcript)
		}
	}
	// The monitor's screen, captured by tmux, shows the four endpoints.
	from := strings.Index(transcript, "$ rdmaform monitor")
	to := strings.Index(transcript, "$ rdmaform plan -no-color -detailed-exitcode")
	if from < 0 || to < from {
		return
	}
	if screen := transcript[from:to]; strings.Count(strings.ToLower(screen), "established") < 4 {
		t.Errorf("the monitor's screen shows fewer than 4 established rows:\n%s", screen)
	}
}
