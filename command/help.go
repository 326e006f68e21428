package command

import (
	"fmt"

	"github.com/rdmaform/rdmaform/command/arguments"
	"github.com/rdmaform/rdmaform/config"
)

func init() {
	register(command{Name: "help", Synopsis: "Show the help of rdmaform or of one command", Run: runHelp})
}

const helpHelp = `Usage: rdmaform [global options] help [COMMAND [SUBCOMMAND]]

  Shows the help of COMMAND (what "rdmaform COMMAND -help" prints), of one
  of its subcommands ("rdmaform help agent stop"), or without a command
  rdmaform's own help, as Terraform's help does.

Options:
  -no-color  Accepted for Terraform compatibility: help prints no colour.
`

func runHelp(args []string, s Meta) int {
	a, diags := arguments.ParseHelp(args)
	if a.Help {
		fmt.Fprint(s.Err, helpHelp)
		return 0
	}
	if diags.HasErrors() {
		s.argDiagnostics(diags, helpHelp)
		return 1
	}
	if len(a.Command) == 0 {
		usage(s.Out)
		return 0
	}
	name := a.Command[0]
	c, ok := commands[name]
	if !ok {
		s.showError(fmt.Sprintf("rdmaform has no command named %q.%s", name, config.DidYouMean(name, commandNames())), "Run \"rdmaform help\" for the list of commands.")
		return 1
	}
	if len(a.Command) == 2 && !c.Subcommands {
		s.showError(fmt.Sprintf("rdmaform %s has no subcommands.", name), fmt.Sprintf("Run \"rdmaform help %s\" for its help.", name))
		return 1
	}
	// The command prints its help and exits 0; a subcommand it does not
	// have is its own error, in its own words.
	return c.Run(append(a.Command[1:], "-help"), s)
}

// commandNames are the registered commands' names, in no order.
func commandNames() []string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	return names
}
