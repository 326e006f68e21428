//go:build integration

package command

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/apply/agent/client"
)

// rdmaform test runs examples/loopback's test file on Soft-RoCE: the
// endpoints connect, their probes come back, and the teardown leaves the
// agent empty; a false assertion on the live round trips fails the
// command with its message.
func TestTestCommandLoopbackExample(t *testing.T) {
	e := newE2E(t, loopbackConfig(t))
	tests, err := os.ReadFile("../examples/loopback/main.rdmatest.hcl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.dir, "main.rdmatest.hcl"), tests, 0o644); err != nil {
		t.Fatal(err)
	}
	e.expect(0, []string{
		"main.rdmatest.hcl... in progress\n", "  run \"plan\"... pass\n", "  run \"connects\"... pass\n",
		"main.rdmatest.hcl... tearing down\n", "main.rdmatest.hcl... pass\n", "Success! 2 passed, 0 failed.",
	}, "test", "-no-color")
	agentHoldsNothing(t, e.socket)
	if _, err := os.Stat(filepath.Join(e.dir, "rdmaform.rdmastate")); !os.IsNotExist(err) {
		t.Fatalf("rdmaform test wrote the configuration's own state: %v", err)
	}

	failing := `run "too_fast" {
  assert {
    condition     = live.endpoint.client[0].probe.received > 0 && live.endpoint.client[0].probe.max_ms < 0
    error_message = "Round trips of ${live.endpoint.client[0].probe.max_ms} ms are not below 0 ms."
  }
}
`
	os.MkdirAll(filepath.Join(e.dir, "tests"), 0o755)
	if err := os.WriteFile(filepath.Join(e.dir, "tests", "fail.rdmatest.hcl"), []byte(failing), 0o644); err != nil {
		t.Fatal(err)
	}
	out := e.expect(1, []string{
		"  run \"too_fast\"... fail\n", "Error: Test assertion failed", "on tests/fail.rdmatest.hcl:3:21, in run \"too_fast\":",
		"ms are not below 0 ms.", "tests/fail.rdmatest.hcl... fail\n", "Failure! 0 passed, 1 failed.",
	}, "test", "-no-color", "-filter=tests/fail.rdmatest.hcl")
	if strings.Contains(out, "main.rdmatest.hcl...") {
		t.Fatalf("-filter ran another file:\n%s", out)
	}
	agentHoldsNothing(t, e.socket)
}

// agentHoldsNothing fails the test when the agent at socket still holds
// objects: rdmaform test's teardown destroys all it made.
func agentHoldsNothing(t *testing.T, socket string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, socket, client.StartOptions{MayStart: func() bool { return false }})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	list, err := c.List(ctx, &pb.ListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Objects) != 0 {
		var names []string
		for _, o := range list.Objects {
			names = append(names, o.Address)
		}
		t.Fatalf("the agent still holds %d objects after the test: %s", len(names), strings.Join(names, ", "))
	}
}
