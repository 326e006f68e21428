//go:build integration

package command

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"
)

// A listener port another program holds (rping -s here): plan refuses at
// the listener's port naming the program (the kernel's resource tracking,
// through the agent), and so does apply, which keeps the state; apply
// succeeds once the program is gone.
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
	refusal := []string{
		"Error: Port held by another program",
		fmt.Sprintf("listener.busy: %s:7493 (tcp) is held by rping (pid %d), another program on the agent's host", addr, rping.Process.Pid),
		"stop that program, or choose another port.",
		"  on main.rdma.hcl:4",
	}
	e.expect(1, refusal, "plan", "-no-color")
	e.expect(1, refusal, "apply", "-auto-approve", "-no-color")
	// Refused at plan: nothing was made, no state written.
	e.expect(1, []string{"No state file was found!"}, "state", "list")
	rping.Process.Kill()
	rping.Wait()
	e.expect(0, []string{"Apply complete! Resources: 1 added"}, "apply", "-auto-approve", "-no-color")
	e.expect(0, []string{"Destroy complete! Resources: 1 destroyed."}, "destroy", "-auto-approve", "-no-color")
}
