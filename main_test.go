package main

import (
	"os"
	"testing"
)

// asCLIEnv makes this test binary behave as the rdmaform command, so that
// tests and benchmarks can run the code under test as separate processes
// (tmux, apply, the agent it starts).
const asCLIEnv = "RDMAFORM_TEST_AS_CLI"

func TestMain(m *testing.M) {
	if os.Getenv(asCLIEnv) == "1" {
		os.Exit(run(os.Args[1:], streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}))
	}
	os.Exit(m.Run())
}
