package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rdmaform/rdmaform/tui"
)

func init() {
	register(command{Name: "monitor", Synopsis: "Watch every endpoint's live connection status", Run: runMonitor})
}

const monitorUsage = `Usage: rdmaform monitor [options]

  Shows every object the agent holds and how each connection is doing, live.

Options:
  -agent=PATH   The agent's socket (default: $XDG_RUNTIME_DIR/rdmaform/agent.sock,
                or /run/rdmaform/agent.sock for root).
  -no-color     Draw without colour; so does a non-empty NO_COLOR.
`

func runMonitor(args []string, s streams) int {
	fs := flag.NewFlagSet("monitor", flag.ContinueOnError)
	fs.SetOutput(s.Err)
	fs.Usage = func() { fmt.Fprint(s.Err, monitorUsage) }
	agent := fs.String("agent", "", "")
	noColor := fs.Bool("no-color", false, "")
	// -demo is for developers until the agent exists: synthetic objects,
	// labelled as such on screen. It is left out of the usage on purpose.
	demo := fs.Bool("demo", false, "")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 1
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(s.Err, "Error: monitor takes no arguments, got %q\n\n", fs.Args())
		fs.Usage()
		return 1
	}
	socket := *agent
	if socket == "" {
		socket = defaultAgentSocket()
	}
	if !*demo {
		fmt.Fprintf(s.Err, "Error: the rdmaform agent is not available in this build yet, so there is nothing at %s to monitor.\n", socket)
		return 1
	}
	err := tui.Run(tui.Options{
		Source:  tui.DemoSource{Endpoints: 40, Rate: 20},
		Target:  "(demo)",
		Demo:    true,
		NoColor: *noColor || os.Getenv("NO_COLOR") != "",
	}, s.In, s.Out)
	if err != nil {
		fmt.Fprintf(s.Err, "Error: monitor: %v\n", err)
		return 1
	}
	return 0
}

// defaultAgentSocket is where the agent listens unless told otherwise, as
// the agent's design places it.
func defaultAgentSocket() string {
	if os.Geteuid() != 0 {
		if dir := os.Getenv("XDG_RUNTIME_DIR"); dir != "" {
			return filepath.Join(dir, "rdmaform", "agent.sock")
		}
	}
	return "/run/rdmaform/agent.sock"
}
