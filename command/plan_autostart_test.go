package command

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
)

// autostartConfig fails to plan on any host: no host has nosuch0 (and
// the build host no RDMA device at all).
const autostartConfig = `
rdmaform {
  agent {
    socket = %q
  }
}

protection_domain "p" {
  device = "nosuch0"
}
`

// runAsCLI runs this test binary as the rdmaform command in dir, as a
// user would run it: the agent it may start is a process of its own.
func runAsCLI(t *testing.T, dir string, args ...string) (int, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd := exec.Command(exe, args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &out, &out
	cmd.Env = append(os.Environ(), asCLIEnv+"=1")
	err = cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String()
}

// processGone reports whether pid has exited (a zombie waiting for its
// reaper has).
func processGone(pid int) bool {
	if syscall.Kill(pid, 0) == syscall.ESRCH {
		return true
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	// pid (comm) S ...: the state follows the last parenthesis.
	rest := string(stat[bytes.LastIndexByte(stat, ')')+1:])
	return strings.HasPrefix(strings.TrimSpace(rest), "Z") || strings.HasPrefix(strings.TrimSpace(rest), "X")
}

// A plan that fails leaves no agent behind it: the one it started in the
// background is stopped (its socket and lock gone, its process exited).
func TestFailedPlanStopsTheAgentItStarted(t *testing.T) {
	socket := filepath.Join(t.TempDir(), "rdmaform", "agent.sock")
	dir := planDir(t, fmt.Sprintf(autostartConfig, socket))
	code, out := runAsCLI(t, dir, "plan", "-no-color")
	m := regexp.MustCompile(`Started an rdmaform agent in the background: pid (\d+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("plan started no agent: exit %d\n%s", code, out)
	}
	pid, _ := strconv.Atoi(m[1])
	t.Cleanup(func() {
		if !processGone(pid) {
			syscall.Kill(pid, syscall.SIGKILL) // the test failed: leave nothing running
		}
	})
	if code != 1 || !strings.Contains(out, fmt.Sprintf("Stopped the agent this command started (pid %d)", pid)) {
		t.Errorf("plan: exit %d, want 1 and the agent stopped\n%s", code, out)
	}
	for _, f := range []string{socket, socket + ".lock"} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s is left after the failed plan (%v)", f, err)
		}
	}
	// The agent removes its socket and lock last, then exits: wait for
	// that, generously.
	deadline := time.Now().Add(30 * time.Second)
	for !processGone(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("the agent the failed plan started (pid %d) still runs after 30 s", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// An agent that was running before the plan is not the plan's to stop.
func TestFailedPlanLeavesARunningAgentAlone(t *testing.T) {
	socket, c := inProcessAgent(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	before, err := c.Info(ctx, &pb.InfoRequest{})
	if err != nil {
		t.Fatal(err)
	}
	dir := planDir(t, fmt.Sprintf(autostartConfig, socket))
	code, out := runAsCLI(t, dir, "plan", "-no-color")
	if code != 1 || strings.Contains(out, "Started an rdmaform agent") || strings.Contains(out, "Stopped the agent") {
		t.Errorf("plan: exit %d, want 1, with the running agent\n%s", code, out)
	}
	after, err := c.Info(ctx, &pb.InfoRequest{})
	if err != nil || after.Pid != before.Pid || after.StartedAt != before.StartedAt {
		t.Errorf("the agent that ran before the plan: %v, %v, was %v", after, err, before)
	}
}

// A plan across agents that fails because one does not answer stops the
// local agent it started too, and says so.
func TestPlanStopsTheAgentItStartedWhenAnotherDoesNotAnswer(t *testing.T) {
	at := newAgentsTest(map[string]string{"listener.a": "agent.s1", "endpoint.e": "agent.compute"}) // listener.b is local
	at.down["agent.s1"] = true
	m := at.meta(t)
	local, stops := newMemFabric(), 0
	m.Connect = func(context.Context, string, io.Writer, func() bool) (*fabricConn, error) {
		return &fabricConn{Refresher: local, Fabric: local, CreateBeforeDestroy: true, StopStarted: func() string {
			stops++
			return "Stopped the agent this command started (pid 1)."
		}}, nil
	}
	code, out, errs := m.cmd(t, planDir(t, fabricTestConfig), "", "plan", "-no-color")
	if code != 1 || stops != 1 || !strings.Contains(errs, "agent.s1 (10.77.1.1:7470) does not answer") || !strings.Contains(errs, "Stopped the agent this command started (pid 1).") {
		t.Errorf("plan: exit %d, %d stops\n%s%s", code, stops, out, errs)
	}
}
