package command

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func runAgentForTest(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = runAgent(args, Meta{In: strings.NewReader(""), Out: &out, Err: &errb})
	return code, out.String(), errb.String()
}

func TestAgentStatusAndStopWithoutAnAgent(t *testing.T) {
	t.Parallel()
	socket := filepath.Join(t.TempDir(), "agent.sock")
	if code, out, _ := runAgentForTest("stop", "-socket="+socket); code != 0 || !strings.Contains(out, "No agent runs at "+socket) {
		t.Errorf("stop: exit %d, %q", code, out)
	}
	if code, _, stderr := runAgentForTest("status", "-socket="+socket); code != 1 || !strings.Contains(stderr, "no rdmaform agent answers at "+socket) {
		t.Errorf("status: exit %d, %q", code, stderr)
	}
}

func TestAgentRunsReportsAndStops(t *testing.T) {
	socket := filepath.Join(t.TempDir(), "rdmaform", "agent.sock")
	done := make(chan int, 1)
	var errb bytes.Buffer
	go func() {
		done <- runAgent([]string{"-socket=" + socket}, Meta{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &errb})
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, out, _ := runAgentForTest("status", "-socket="+socket)
		if code == 0 {
			if !strings.Contains(out, "pid "+strconv.Itoa(os.Getpid())) || !strings.Contains(out, "Objects: 0") {
				t.Errorf("status: %q", out)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the agent never answered")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if code, out, _ := runAgentForTest("stop", "-socket="+socket); code != 0 || !strings.Contains(out, "Stopped the agent") {
		t.Errorf("stop: exit %d, %q", code, out)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("the agent exited %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the agent did not stop")
	}
}
