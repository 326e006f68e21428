//go:build integration

package command

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestMonitorInTmux runs `rdmaform apply -monitor` in a real tmux session:
// the screen shows a listener and four endpoints come up established with
// probe round trips, and apply's report follows once the monitor is left.
// Then `rdmaform monitor` watches while the Soft-RoCE device is deleted,
// and the screen shows the loss. The screens are kept in test-artifacts/.
// It must be this process's first test (its file's name, a_..., sorts first): Soft-RoCE
// finishes deleting a device only once no process holds it open.
func TestMonitorInTmux(t *testing.T) {
	dev, netdev := os.Getenv("RDMAFORM_TEST_DEVICE"), os.Getenv("RDMAFORM_TEST_NETDEV")
	if dev == "" || netdev == "" {
		t.Fatal("RDMAFORM_TEST_DEVICE and RDMAFORM_TEST_NETDEV are not set: run the integration tests in the Soft-RoCE testbed (scripts/vm-run)")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is not installed (scripts/deps installs it)")
	}
	if held := heldRDMADevices(); len(held) > 0 {
		t.Fatalf("%v hold RDMA devices open (a test with an in-process agent, or one that let plan start an agent in the background, ran first), so deleting the device cannot finish: such tests belong in files that sort after this one, or use withFabric", held)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	repo, _ := filepath.Abs("..") // the repository: tests run in command/
	artefacts := filepath.Join(repo, "test-artifacts")
	os.MkdirAll(artefacts, 0o755)

	dir := t.TempDir()
	socket := filepath.Join(dir, "run", "agent.sock")
	example, err := os.ReadFile(filepath.Join(repo, "examples", "loopback", "main.rdma.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf("rdmaform {\n  agent {\n    socket = %q\n  }\n}\n\n%s", socket, example)
	if err := os.WriteFile(filepath.Join(dir, "main.rdma.hcl"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	cli := func(args ...string) *exec.Cmd {
		c := exec.Command(exe, args...)
		c.Dir = dir
		c.Env = append(os.Environ(), asCLIEnv+"=1")
		return c
	}

	agent := cli("agent", "-socket="+socket, "-log="+filepath.Join(dir, "agent.log"))
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	agentDone := make(chan error, 1)
	go func() { agentDone <- agent.Wait() }()
	stopAgent := sync.OnceFunc(func() {
		agent.Process.Kill()
		<-agentDone
	})
	t.Cleanup(stopAgent)
	waitFor(t, 2*time.Minute, func() bool { _, err := os.Stat(socket); return err == nil }, "the agent's socket")

	// apply -monitor in a real terminal: the monitor shows the objects
	// come up while apply creates them; q leaves it and apply's report
	// follows. The pane stays open after the command so it can be read.
	capture := func(session string) string {
		out, _ := exec.Command("tmux", "capture-pane", "-p", "-t", session).Output()
		return string(out)
	}
	tmux := func(session, command string) {
		if out, err := exec.Command("tmux", "new-session", "-d", "-s", session, "-x", "140", "-y", "30", command).CombinedOutput(); err != nil {
			t.Fatalf("tmux new-session: %v: %s", err, out)
		}
		t.Cleanup(func() { exec.Command("tmux", "kill-session", "-t", session).Run() })
	}
	applying := fmt.Sprintf("rdmaform-apply-%d", os.Getpid())
	tmux(applying, fmt.Sprintf("cd %s && env %s=1 %s apply -auto-approve -monitor -no-color; sleep 600", dir, asCLIEnv, exe))
	var screen string
	waitFor(t, 3*time.Minute, func() bool {
		screen = capture(applying)
		return strings.Count(screen, "established") >= 8 && strings.Contains(screen, "endpoint.client[3]") &&
			len(probeRTT.FindAllString(screen, -1)) >= 4 && strings.Contains(screen, "apply complete — q shows its report")
	}, "four endpoints and four accepted connections established, with probe round trips, in apply -monitor, which says apply has ended", &screen)
	keep(t, artefacts, "apply-monitor.txt", screen)
	exec.Command("tmux", "send-keys", "-t", applying, "q").Run()
	waitFor(t, 2*time.Minute, func() bool {
		screen = capture(applying)
		return strings.Contains(screen, "Apply complete! Resources: 6 added, 0 changed, 0 destroyed.")
	}, "apply's report once the monitor is left", &screen)
	keep(t, artefacts, "apply-monitor-after-q.txt", screen)

	// status, for people and scripts.
	out, err := cli("status").CombinedOutput()
	if err != nil || strings.Count(string(out), "established") < 8 || !strings.Contains(string(out), "endpoint.client[3]") {
		t.Fatalf("status: %v\n%s", err, out)
	}
	keep(t, artefacts, "status.txt", string(out))
	out, err = cli("status", "-json").CombinedOutput()
	if err != nil || !strings.Contains(string(out), `"address": "endpoint.client[3]"`) {
		t.Fatalf("status -json: %v\n%s", err, out)
	}

	// The monitor on its own, through the device's loss.
	session := fmt.Sprintf("rdmaform-monitor-%d", os.Getpid())
	tmux(session, fmt.Sprintf("cd %s && env %s=1 %s monitor -no-color -agent=%s", dir, asCLIEnv, exe, socket))
	waitFor(t, 2*time.Minute, func() bool {
		screen = capture(session)
		return strings.Count(screen, "established") >= 8
	}, "the monitor showing the established connections", &screen)
	keep(t, artefacts, "monitor-established.txt", screen)
	// A healthy fabric counts no problem, and each accepted connection
	// is named by its endpoint, the other end on this agent.
	if strings.Contains(screen, "problem") || strings.Count(screen, "└ ⇄ endpoint.client[") != 4 {
		t.Errorf("the established fabric counts problems, or its connections are not named by their endpoints:\n%s", screen)
	}

	deleted := make(chan error, 1)
	go func() {
		out, err := exec.Command("rdma", "link", "delete", dev).CombinedOutput()
		if err != nil {
			err = fmt.Errorf("%v: %s", err, out)
		}
		deleted <- err
	}()
	waitDeleted := sync.OnceValue(func() error {
		select {
		case err := <-deleted:
			return err
		case <-time.After(2 * time.Minute):
			return fmt.Errorf("rdma link delete did not finish within 2 minutes while the agent ran")
		}
	})
	t.Cleanup(func() {
		// The agent releases the device, so the deletion completes
		// while it runs; stopping it first would hide a failure to.
		waitDeleted()
		stopAgent()
		if out, err := exec.Command("rdma", "link", "add", dev, "type", "rxe", "netdev", netdev).CombinedOutput(); err != nil {
			t.Errorf("re-adding %s: %v: %s", dev, err, out)
		}
	})
	waitFor(t, 2*time.Minute, func() bool {
		screen = capture(session)
		return strings.Contains(screen, "DEVICE_REMOVAL") && strings.Count(screen, "established") == 0
	}, "the device loss on the monitor", &screen)
	keep(t, artefacts, "monitor-device-lost.txt", screen)
	// The deletion completes with the agent running, and a plan says
	// what brings the objects back.
	if err := waitDeleted(); err != nil {
		t.Fatalf("rdma link delete: %v", err)
	}
	planOut, _ := cli("plan", "-no-color").CombinedOutput()
	if !strings.Contains(string(planOut), "Warning: A device was removed") || !strings.Contains(string(planOut), "rdma link add") {
		t.Errorf("plan after the device's removal:\n%s", planOut)
	}
	if out, err := cli("agent", "stop", "-force", "-socket="+socket).CombinedOutput(); err != nil {
		t.Errorf("agent stop: %v\n%s", err, out)
	}
	// The agent deleted its objects as it stopped: the monitor keeps its
	// last picture, and says of when. The accepted connections, which no
	// configuration declares, are in it; nothing shows as missing (not
	// held by the agent), as it would without the picture.
	waitFor(t, 2*time.Minute, func() bool {
		screen = capture(session)
		return strings.Contains(screen, "agent stopped") && strings.Contains(screen, "; as of ")
	}, "the banner of the stopped agent on the monitor", &screen)
	if strings.Count(screen, "└ conn/") != 4 || !strings.Contains(screen, "endpoint.client[3]") || strings.Contains(screen, "missing") {
		t.Errorf("the monitor does not keep the stopped agent's last picture:\n%s", screen)
	}
	keep(t, artefacts, "monitor-agent-stopped.txt", screen)
}

// heldRDMADevices lists the processes that hold an RDMA device file open
// (librdmacm keeps a device open once any id used it), as "PID COMMAND".
func heldRDMADevices() []string {
	var held []string
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		fds, _ := os.ReadDir(filepath.Join(p, "fd"))
		for _, fd := range fds {
			if target, err := os.Readlink(filepath.Join(p, "fd", fd.Name())); err == nil && strings.HasPrefix(target, "/dev/infiniband/") {
				cmd, _ := os.ReadFile(filepath.Join(p, "cmdline"))
				held = append(held, filepath.Base(p)+" "+strings.ReplaceAll(strings.TrimRight(string(cmd), "\x00"), "\x00", " "))
				break
			}
		}
	}
	return held
}

// probeRTT matches an endpoint row's last probe round trip (LOST, when shown,
// sits between it and LAST EVENT).
var probeRTT = regexp.MustCompile(`[0-9](µs|ms|s) +([0-9]+/[0-9]+ +)?ESTABLISHED`)

func waitFor(t *testing.T, limit time.Duration, ok func() bool, what string, shown ...*string) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !ok() {
		if time.Now().After(deadline) {
			last := ""
			if len(shown) > 0 {
				last = "; the screen:\n" + *shown[0]
			}
			t.Fatalf("waited %v for %s%s", limit, what, last)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func keep(t *testing.T, dir, name, screen string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(screen), 0o644); err != nil {
		t.Errorf("keeping %s: %v", name, err)
	}
	t.Logf("%s:\n%s", name, screen)
}
