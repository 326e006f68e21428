package arguments

// Help is the help command's options: the command (and subcommand) whose
// help to show, none for the global help.
type Help struct {
	Command []string
	// Help: -help was asked for; nothing else is set.
	Help bool
}

// ParseHelp parses help's command line: "help", "help plan", "help agent stop".
func ParseHelp(args []string) (*Help, Diagnostics) {
	fs := newFlagSet("help")
	acceptNoColor(fs)
	words, help, diags := parseInterspersed(fs, "help", args)
	if help {
		return &Help{Help: true}, nil
	}
	if len(diags) == 0 && len(words) > 2 {
		diags = diags.Append(errDiag("help takes a command and at most one subcommand", "For example: rdmaform help plan, rdmaform help agent stop."))
	}
	return &Help{Command: words}, diags
}
