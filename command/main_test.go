package command

import (
	"fmt"
	"os"
	"testing"
)

// asCLIEnv makes this test binary behave as the rdmaform command, so that
// tests and benchmarks can run the code under test as separate processes
// (tmux, apply, the agent it starts).
const asCLIEnv = "RDMAFORM_TEST_AS_CLI"

func TestMain(m *testing.M) {
	if os.Getenv(asCLIEnv) == "1" {
		os.Exit(run(os.Args[1:], Meta{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}))
	}
	if len(os.Args) > 1 && os.Args[1] == "agent" {
		// A test let plan or apply start an agent in the background,
		// which runs this binary: refuse, rather than run every test
		// again beside the others (holding the RDMA device, among others).
		fmt.Fprintln(os.Stderr, "a test started an agent in the background: give it withFabric, or an agent of its own")
		os.Exit(3)
	}
	os.Exit(m.Run())
}
