package command

import (
	"errors"
	"fmt"
	"os"

	"github.com/rdmaform/rdmaform/apply/agent/client"
	"github.com/rdmaform/rdmaform/command/arguments"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/tui"
)

func init() {
	register(command{Name: "monitor", Synopsis: "Watch every endpoint's live connection status", Run: runMonitor})
}

const monitorUsage = `Usage: rdmaform monitor [options]

  Shows every object the agent holds and how each connection is doing, live.
  Run in a configuration's directory, it shows that configuration's objects
  under their addresses in its state, also those the agent holds under
  another name (moved ones, create_before_destroy replacements), and the
  objects the configuration or the state declare that the agent does not
  hold, as missing. A configuration with agent blocks shows the whole
  fabric: every agent's objects under a HOST column, grouped by host, and
  a host that stops answering as unreachable, its last rows kept. Keys:
  ! unhealthy only, d describe, p peer, h group by host, t taint,
  r reconnect now (both confirmed with y), ? all keys.

Options:
  -agent=PATH   The agent's socket (default: the rdmaform { agent { socket } }
                setting of the configuration here, then the agent's default:
                /run/rdmaform/agent.sock for root,
                $XDG_RUNTIME_DIR/rdmaform/agent.sock or
                /tmp/rdmaform-UID/agent.sock otherwise).
  -no-color     Draw without colour; so does a non-empty NO_COLOR.
`

func runMonitor(args []string, s Meta) int {
	a, diags := arguments.ParseMonitor(args)
	if a.Help {
		fmt.Fprint(s.Err, monitorUsage)
		return 0
	}
	if diags.HasErrors() {
		s.argDiagnostics(diags, monitorUsage)
		return 1
	}
	socket := client.ChooseSocket(a.Agent, configuredAgentSocket())
	opts := tui.Options{
		Source:  agentSource{socket: socket, names: workingDirNames()},
		Target:  socket,
		NoColor: a.View.NoColor || os.Getenv("NO_COLOR") != "",
	}
	if a.Demo {
		opts.Source, opts.Target, opts.Demo = tui.DemoSource{Endpoints: 40, Rate: 20}, "(demo)", true
	} else if hosts := monitorHosts(s, socket); hosts != nil {
		// A fabric: its hosts are shown even when some do not answer.
		ms := monitorState{meta: s, fabric: true}
		opts.Hosts, opts.Declared, opts.Taint = hosts, ms.declared, ms.taint
		opts.Reconnect = monitorReconnect(socket, hosts, workingDirNames())
	} else {
		ms := monitorState{meta: s}
		opts.Declared, opts.Taint = ms.declared, ms.taint
		opts.Reconnect = monitorReconnect(socket, nil, workingDirNames())
		// Say at once when nothing answers, rather than drawing an empty
		// screen that waits for an agent.
		c := dialToShow("monitor", socket, s)
		if c == nil {
			return 1
		}
		c.Close()
	}
	// The TUI reads keys from a terminal and draws on one: without a
	// terminal to read, it failed after switching the screen and left it
	// switched; drawn into a file, it left the terminal blank.
	// A dumb terminal (TERM=dumb: Emacs's shell, some CI consoles) shows
	// the cursor controls as garbage.
	notTerminal := ""
	switch {
	case !s.stdinIsTerminal():
		notTerminal = "Standard input is not a terminal"
	case !s.stdoutIsTerminal():
		notTerminal = "Standard output is not a terminal"
	case os.Getenv("TERM") == "dumb":
		notTerminal = "The terminal is dumb (TERM=dumb): it cannot draw a screen"
	}
	if notTerminal != "" {
		s.showError("monitor needs a terminal", fmt.Sprintf("%s. \"rdmaform status -watch\" prints the objects and\ntheir changes without one.", notTerminal))
		return 1
	}
	err := tui.Run(opts, s.In, s.Out)
	if errors.Is(err, tui.ErrInterrupted) {
		// Stopped from outside (kill, the terminal closing): exit status
		// 1, as an interrupted plan or apply.
		fmt.Fprintln(s.Err, "Interrupt received: the monitor stopped.")
		return 1
	}
	if err != nil {
		s.showError(fmt.Sprintf("monitor: %v", err), "")
		return 1
	}
	return 0
}

// configuredAgentSocket is the rdmaform { agent { socket = ... } } setting of
// the configuration in the working directory, or "" when there is none.
func configuredAgentSocket() string {
	s, diags := config.LoadBackend(".")
	if diags.HasErrors() || s == nil || s.Agent == nil {
		return ""
	}
	return s.Agent.Socket
}
