//go:build integration

package command

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/apply/agent"
	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/apply/agent/agenttest/pki"
)

// `rdmaform monitor` of a fabric in a real tmux session on the Soft-RoCE
// testbed: a listener on the local agent, endpoints on an agent reached
// over mutual TLS. The screen shows both hosts, each accepted connection
// named by its endpoint on the other host, with round trips; when the
// remote agent stops, its host is unreachable, its rows kept and marked
// (the endpoints it deleted as it stopped), while the local host's rows
// stay live (its accepted connections end with the endpoints). The screens are kept in
// test-artifacts/.
func TestMonitorFabricInTmux(t *testing.T) {
	addr := os.Getenv("RDMAFORM_TEST_ADDR")
	if addr == "" {
		t.Fatal("RDMAFORM_TEST_ADDR is not set: run the integration tests in the Soft-RoCE testbed (scripts/vm-run)")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is not installed (scripts/deps installs it)")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	repo, _ := filepath.Abs("..")
	artefacts := filepath.Join(repo, "test-artifacts")
	os.MkdirAll(artefacts, 0o755)

	p := newFabricPKI(t)
	server := p.ca.Server(t, "far", pki.IPs("127.0.0.1"))
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan *pb.InfoResponse, 1), make(chan error, 1)
	go func() {
		done <- agent.Run(ctx, agent.Options{Socket: filepath.Join(t.TempDir(), "far", "agent.sock"), Version: "test", Stderr: io.Discard,
			TLS:   agent.TLS{Listen: "127.0.0.1:0", CertFile: server.CertFile, KeyFile: server.KeyFile, ClientCAFile: p.ca.CertFile},
			Ready: func(info *pb.InfoResponse) { ready <- info }})
	}()
	var far *pb.InfoResponse
	select {
	case far = <-ready:
	case err := <-done:
		t.Fatalf("the remote agent: %v", err)
	}
	stopFar := sync.OnceFunc(func() { cancel(); <-done })
	t.Cleanup(stopFar)

	e := newE2E(t, fmt.Sprintf(`
agent "far" {
  address = %q
  tls {
    ca_file   = %q
    cert_file = %q
    key_file  = %q
  }
}

listener "l" {
  address = %q
  port    = 7594
  qp {}
  accept {
    echo = true
  }
}

endpoint "e" {
  count   = 2
  agent   = agent.far
  address = listener.l.address
  port    = listener.l.port
  qp {}
  probe {
    interval = "200ms"
    size     = 64
  }
}
`, far.Listen, p.ca.CertFile, p.user.CertFile, p.user.KeyFile, addr))
	e.expect(0, []string{"Apply complete! Resources: 3 added"}, "apply", "-auto-approve", "-no-color")

	session := fmt.Sprintf("rdmaform-fabric-%d", os.Getpid())
	if out, err := exec.Command("tmux", "new-session", "-d", "-s", session, "-x", "160", "-y", "30",
		fmt.Sprintf("cd %s && env %s=1 %s monitor -no-color", e.dir, asCLIEnv, exe)).CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("tmux", "kill-session", "-t", session).Run() })
	capture := func() string {
		out, _ := exec.Command("tmux", "capture-pane", "-p", "-t", session).Output()
		return string(out)
	}
	var screen string
	waitFor(t, 60*time.Second, func() bool {
		screen = capture()
		return strings.Contains(screen, "fabric of 2 hosts: 2 reachable") && strings.Count(screen, "└ ⇄ endpoint.e[") == 2 &&
			len(probeRTT.FindAllString(screen, -1)) >= 2
	}, "both hosts, the accepted connections named by their endpoints on the other host, round trips", &screen)
	keep(t, artefacts, "monitor-fabric.txt", screen)
	for _, line := range strings.Split(screen, "\n") {
		if strings.Contains(line, "endpoint.e[") && !strings.Contains(line, "└") && !strings.HasPrefix(strings.TrimLeft(line, "▸ "), "far ") {
			t.Errorf("an endpoint's row does not name its host, far:\n%s", line)
		}
	}

	// p from an accepted connection goes to its endpoint on the far host.
	exec.Command("tmux", "send-keys", "-t", session, "j", "j", "p", "Enter").Run()
	waitFor(t, 30*time.Second, func() bool {
		screen = capture()
		return strings.Contains(screen, "peer               listener.l/conn/") && strings.Contains(screen, " on local (p goes to it)")
	}, "the detail of the endpoint p went to, naming its peer on the local host", &screen)
	keep(t, artefacts, "monitor-fabric-peer.txt", screen)
	exec.Command("tmux", "send-keys", "-t", session, "Escape").Run()

	stopFar()
	waitFor(t, 60*time.Second, func() bool {
		screen = capture()
		return strings.Contains(screen, "1 reachable · 1 unreachable") && strings.Contains(screen, "agent.far unreachable") &&
			strings.Count(screen, "far ✗ endpoint.e[") == 2 && strings.Contains(screen, "local listener.l")
	}, "the far host unreachable, its endpoints kept and marked, the local host's listener there", &screen)
	keep(t, artefacts, "monitor-fabric-unreachable.txt", screen)
}
