package command

import (
	"os"
	"runtime"
)

// oneProcWhileWalking runs the CLI's Go code on one thread while the walk
// waits on the fabric, and returns how to give back the threads it had.
// During the walk the CLI mostly waits for the agent, which shares the
// host and is the one doing the work: with a thread per CPU, each answer
// woke an idle thread on another CPU (an inter-processor interrupt, then
// that thread's own wake-ups), and in the 2-vCPU Soft-RoCE VM an apply
// of 1 + 500 spent 21 s of CPU in the CLI against 10 s on one thread,
// taken from the agent. A GOMAXPROCS the user set is left alone.
func oneProcWhileWalking() (restore func()) {
	if os.Getenv("GOMAXPROCS") != "" {
		return func() {}
	}
	was := runtime.GOMAXPROCS(1)
	return func() { runtime.GOMAXPROCS(was) }
}
