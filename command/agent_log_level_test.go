package command

import (
	"bytes"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rdmaform/rdmaform/apply/agent"
)

// syncBuffer is the agent's stderr, read while it writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// agent log-level changes a running agent's level; agent status shows it
// and where the metrics are served.
func TestAgentLogLevelWithoutARestart(t *testing.T) {
	socket := filepath.Join(t.TempDir(), "rdmaform", "agent.sock")
	stderr := &syncBuffer{}
	info := serveAgent(t, agent.Options{Socket: socket, Version: "test", Stderr: stderr, LogFormat: "json", Metrics: "127.0.0.1:0"})
	t.Chdir(".")
	code, out, errs := stateCmd(t, t.TempDir(), "", "agent", "status", "-socket="+socket)
	if code != 0 || !strings.Contains(out, "Metrics: http at "+info.Metrics+"/metrics\n") || !strings.Contains(out, "Log level: info\n") {
		t.Fatalf("agent status: %d\n%s%s", code, out, errs)
	}
	code, out, errs = stateCmd(t, t.TempDir(), "", "agent", "log-level", "-socket="+socket, "debug")
	if code != 0 || out != "The agent logs at debug now (it logged at info).\n" {
		t.Fatalf("agent log-level debug: %d\n%s%s", code, out, errs)
	}
	if code, out, _ := stateCmd(t, t.TempDir(), "", "agent", "status", "-socket="+socket); code != 0 || !strings.Contains(out, "Log level: debug\n") {
		t.Errorf("agent status after log-level debug:\n%s", out)
	}
	// -log-format=json: stderr's lines are JSON, the change among them.
	if !strings.Contains(stderr.String(), `"level":"INFO","msg":"log level changed","from":"info","to":"debug"}`) {
		t.Errorf("the agent's stderr:\n%s", stderr.String())
	}
	code, _, errs = stateCmd(t, t.TempDir(), "", "agent", "log-level", "-socket="+socket, "loud")
	if code != 1 || !strings.Contains(errs, `"loud": use trace, debug, info, warn or error.`) {
		t.Errorf("agent log-level loud: %d\n%s", code, errs)
	}
}
