package arguments

import "github.com/rdmaform/rdmaform/config/addrs"

// StateCommand is the options of a state subcommand (list, show, rm, mv,
// pull, push).
type StateCommand struct {
	Sub    string
	State  State // -lock and -lock-timeout of rm, mv and push
	DryRun bool  // rm and mv -dry-run
	Force  bool  // push -force
	ID     string
	// Addrs are list's patterns, show's address, rm's addresses and mv's
	// source and destination; a resource address without an index
	// (endpoint.client) matches every instance of the resource.
	Addrs []addrs.Instance
	// Path is push's state file ("-": standard input).
	Path string
	Help bool
}

// ParseState parses the command line of state sub.
func ParseState(sub string, args []string) (*StateCommand, Diagnostics) {
	c := &StateCommand{Sub: sub}
	fs := newFlagSet("state " + sub)
	acceptNoColor(fs)
	switch sub {
	case "list":
		fs.StringVar(&c.ID, "id", "", "")
	case "rm", "mv":
		c.State.register(fs)
		fs.BoolVar(&c.DryRun, "dry-run", false, "")
	case "push":
		c.State.register(fs)
		fs.BoolVar(&c.Force, "force", false, "")
	}
	help, diags := parseFlags(fs, "state "+sub, args)
	if help {
		return &StateCommand{Sub: sub, Help: true}, nil
	}
	if len(diags) > 0 {
		return c, diags
	}
	n := fs.NArg()
	switch {
	case sub == "show" && n != 1:
		return c, diags.Append(errDiag("Exactly one argument expected", "Usage: rdmaform state show ADDRESS"))
	case sub == "rm" && n == 0:
		return c, diags.Append(errDiag("At least one address is required.", "Usage: rdmaform state rm [options] ADDRESS..."))
	case sub == "mv" && n != 2:
		return c, diags.Append(errDiag("Exactly two arguments expected.", "Usage: rdmaform state mv [options] SOURCE DESTINATION"))
	case sub == "push" && n != 1:
		return c, diags.Append(errDiag(`Exactly one argument expected: the state file to push ("-" for stdin).`, ""))
	case sub == "push":
		c.Path = fs.Arg(0)
		return c, diags
	case sub == "pull":
		return c, diags
	}
	for _, a := range fs.Args() {
		addr, err := addrs.ParseInstance(a)
		if err != nil {
			diags = diags.Append(errDiag("Invalid address", err.Error()))
			continue
		}
		c.Addrs = append(c.Addrs, addr)
	}
	return c, diags
}
