//go:build integration

package command

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// A listener port another program holds (rping -s here): apply fails at
// that listener naming the call, the errno, the port and where the block
// is, keeps the state, and succeeds once the program is gone.
func TestListenerPortTakenByAnotherProgram(t *testing.T) {
	addr := os.Getenv("RDMAFORM_TEST_ADDR")
	if _, err := exec.LookPath("rping"); err != nil {
		t.Fatal("rping (rdmacm-utils) is not installed")
	}
	rping := exec.Command("rping", "-s", "-a", addr, "-p", "7493")
	if err := rping.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rping.Process.Kill(); rping.Wait() })
	for deadline := time.Now().Add(10 * time.Second); cmIDs(t, "7493") == 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("rping does not listen on 7493")
		}
	}
	e := newE2E(t, `
listener "busy" {
  address = "`+addr+`"
  port    = 7493
}
`)
	e.expect(1, []string{
		"Error: listener.busy: create failed: rdma_create_ep: address already in use (EADDRINUSE): " + addr + ":7493 (tcp) is bound by another program, not by this agent",
		"  on main.rdma.hcl:2:1, in listener \"busy\":",
	}, "apply", "-auto-approve", "-no-color")
	if out := e.expect(0, nil, "state", "list"); out != "" {
		t.Fatalf("the state records objects after the failed apply:\n%s", out)
	}
	rping.Process.Kill()
	rping.Wait()
	e.expect(0, []string{"Apply complete! Resources: 1 added"}, "apply", "-auto-approve", "-no-color")
	e.expect(0, []string{"Destroy complete! Resources: 1 destroyed."}, "destroy", "-auto-approve", "-no-color")
}
