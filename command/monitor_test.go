package command

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/config"
)

func runMonitorForTest(args ...string) (code int, stdout, stderr string) {
	return Meta{}.runMonitorForTest(args...)
}

// runMonitorForTest is runMonitorForTest with m's seams.
func (m Meta) runMonitorForTest(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = runMonitor(args, m.streams(strings.NewReader(""), &out, &errb))
	return code, out.String(), errb.String()
}

func TestMonitorSaysNoAgentAnswers(t *testing.T) {
	t.Parallel()
	socket := t.TempDir() + "/agent.sock"
	code, _, stderr := runMonitorForTest("-agent=" + socket)
	if code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	if !strings.Contains(stderr, "no rdmaform agent answers at "+socket) || !strings.Contains(stderr, "rdmaform agent -socket=") {
		t.Errorf("stderr = %q", stderr)
	}
}

func TestMonitorUsageLeavesOutTheDemoFlag(t *testing.T) {
	t.Parallel()
	code, _, stderr := runMonitorForTest("-h")
	if code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
	if !strings.Contains(stderr, "-no-color") || strings.Contains(stderr, "-demo") || !strings.Contains(stderr, "/tmp/rdmaform-UID/agent.sock") {
		t.Errorf("usage = %q", stderr)
	}
}

func TestMonitorRejectsArguments(t *testing.T) {
	t.Parallel()
	if code, _, stderr := runMonitorForTest("extra"); code != 1 || !strings.Contains(stderr, "takes no arguments") {
		t.Errorf("exit code %d, stderr %q", code, stderr)
	}
}

func TestMonitorIsRegistered(t *testing.T) {
	t.Parallel()
	if c, ok := commands["monitor"]; !ok || c.Synopsis == "" {
		t.Error("monitor is not registered")
	}
}

func TestMonitorUsesTheConfiguredAgentSocket(t *testing.T) {
	dir := t.TempDir()
	socket := dir + "/configured/agent.sock"
	conf := "rdmaform {\n  agent {\n    socket = \"" + socket + "\"\n  }\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "main"+config.HCLSuffix), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	code, _, stderr := runMonitorForTest()
	if code != 1 || !strings.Contains(stderr, "no rdmaform agent answers at "+socket) {
		t.Errorf("exit code %d, stderr %q", code, stderr)
	}
}

func TestMonitorNeedsATerminal(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := Meta{StdoutTerminal: stdoutTTY}.runMonitorForTest("-demo")
	if code != 1 || stdout != "" || !strings.Contains(stderr, "monitor needs a terminal") ||
		!strings.Contains(stderr, "Standard input is not a terminal") || !strings.Contains(stderr, "status -watch") {
		t.Errorf("exit code %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// With standard output redirected to a file, the monitor refuses rather
// than draw into the file and leave the terminal blank.
func TestMonitorNeedsATerminalForItsOutput(t *testing.T) {
	t.Parallel()
	var code int
	var stdout, stderr string
	within(t, func() { code, stdout, stderr = Meta{StdinTerminal: stdinTTY}.runMonitorForTest("-demo") })
	if code != 1 || stdout != "" || !strings.Contains(stderr, "monitor needs a terminal") ||
		!strings.Contains(stderr, "Standard output is not a terminal") {
		t.Errorf("exit code %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TERM=dumb cannot take the full-screen cursor control: refused as no
// terminal is.
func TestMonitorRefusesADumbTerminal(t *testing.T) {
	t.Setenv("TERM", "dumb")
	m := Meta{StdinTerminal: stdinTTY, StdoutTerminal: stdoutTTY}
	var code int
	var stdout, stderr string
	within(t, func() { code, stdout, stderr = m.runMonitorForTest("-demo") })
	if code != 1 || stdout != "" || !strings.Contains(stderr, "TERM=dumb") || !strings.Contains(stderr, "status -watch") {
		t.Errorf("exit code %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
