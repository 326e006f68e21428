package command

import (
	"io"
	"os"
	"strings"

	"github.com/posener/complete"
	"github.com/rdmaform/rdmaform/command/arguments"
)

// subcommandNames are the subcommands of the commands that have them, for
// completion; their options come from their own flag sets.
var subcommandNames = map[string][]string{
	"agent":     {"stop", "status", "log-level"},
	"metadata":  {"functions"},
	"state":     {"list", "show", "rm", "mv", "pull", "push"},
	"workspace": {"list", "show", "new", "select", "delete"},
}

// answerCompletion answers the shell when it runs rdmaform to complete a
// command line (bash's "complete -C" sets COMP_LINE): the words that may
// come next, one a line on out. It reports whether it was asked.
func answerCompletion(out io.Writer) bool {
	if os.Getenv("COMP_LINE") == "" {
		return false
	}
	c := complete.New("rdmaform", completionTree())
	c.Out = out
	return c.Complete()
}

// completionTree is every command with its options, read from the flag
// sets its parser defines, so that completion
// offers what the command accepts and nothing else.
func completionTree() complete.Command {
	top := complete.Command{
		Sub: complete.Commands{},
		Flags: complete.Flags{
			"-chdir": complete.PredictDirs("*"), "-help": complete.PredictNothing, "-version": complete.PredictNothing,
			"-install-autocomplete": complete.PredictNothing, "-uninstall-autocomplete": complete.PredictNothing,
		},
	}
	for name := range commands {
		c := complete.Command{Flags: commandFlags(name)}
		if subs := subcommandNames[name]; len(subs) > 0 {
			c.Sub = complete.Commands{}
			for _, sub := range subs {
				c.Sub[sub] = complete.Command{Flags: commandFlags(name, sub)}
			}
		}
		top.Sub[name] = c
	}
	top.Sub["help"] = complete.Command{Flags: top.Sub["help"].Flags, Args: complete.PredictSet(commandNames()...)}
	return top
}

// commandFlags are the options of the command line words name (plan, or
// agent stop): what its parser defines. The command is run with an option
// it does not have, which every command refuses before doing anything
// (-help is not parsed by all: refresh answers it early).
func commandFlags(name ...string) complete.Flags {
	quiet := Meta{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard}
	run := commands[name[0]].Run
	defined := arguments.FlagsOf(func() { run(append(name[1:], "-no-such-option-for-completion"), quiet) })
	flags := complete.Flags{}
	for _, f := range defined {
		flags["-"+f.Name] = complete.PredictAnything
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			flags["-"+f.Name] = complete.PredictNothing
		}
	}
	return flags
}
