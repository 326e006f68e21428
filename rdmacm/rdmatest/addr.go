// Package rdmatest holds what tests on a real RDMA device share.
package rdmatest

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// SecondAddr returns another local address served by the test device:
// $RDMAFORM_TEST_ADDR2, or in the Soft-RoCE testbed 10.77.0.2, which it
// adds to the test netdev (Soft-RoCE serves every address of its netdev).
// It fails the test, never skips, when neither is possible.
func SecondAddr(t testing.TB) string {
	t.Helper()
	if a := os.Getenv("RDMAFORM_TEST_ADDR2"); a != "" {
		return a
	}
	netdev := os.Getenv("RDMAFORM_TEST_NETDEV")
	if os.Getenv("RDMAFORM_IN_VM") != "1" || netdev == "" {
		t.Fatal("RDMAFORM_TEST_ADDR2 is not set: set it to a second address served by the test device, or run in the Soft-RoCE testbed (scripts/vm-run)")
	}
	const addr = "10.77.0.2"
	out, err := exec.Command("ip", "addr", "add", addr+"/24", "dev", netdev).CombinedOutput()
	if err != nil && !strings.Contains(string(out), "exists") {
		t.Fatalf("ip addr add %s dev %s: %v\n%s", addr, netdev, err, out)
	}
	return addr
}
