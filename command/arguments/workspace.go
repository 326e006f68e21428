package arguments

import "fmt"

// Workspace is the options of a workspace subcommand (list, show, new,
// select, delete).
type Workspace struct {
	Sub      string
	Name     string // new, select and delete's NAME
	OrCreate bool   // select -or-create
	Force    bool   // delete -force
	// State: -lock and -lock-timeout of new (accepted, as Terraform's:
	// nothing to lock yet) and delete.
	State State
	Help  bool
}

// workspaceSynopses are the arguments of the subcommands that take a NAME.
var workspaceSynopses = map[string]string{"new": "NAME", "select": "[-or-create] NAME", "delete": "[-force] NAME"}

// ParseWorkspace parses the command line of workspace sub.
func ParseWorkspace(sub string, args []string) (*Workspace, Diagnostics) {
	w := &Workspace{Sub: sub}
	fs := newFlagSet("workspace " + sub)
	acceptNoColor(fs)
	switch sub {
	case "new":
		w.State.register(fs)
	case "select":
		fs.BoolVar(&w.OrCreate, "or-create", false, "")
	case "delete":
		fs.BoolVar(&w.Force, "force", false, "")
		w.State.register(fs)
	}
	help, diags := parseFlags(fs, "workspace "+sub, args)
	if help {
		return &Workspace{Sub: sub, Help: true}, nil
	}
	if len(diags) > 0 {
		return w, diags
	}
	synopsis, named := workspaceSynopses[sub]
	switch {
	case !named && fs.NArg() != 0:
		diags = diags.Append(errDiag(fmt.Sprintf("workspace %s takes no arguments, got %q", sub, fs.Args()), ""))
	case named && fs.NArg() != 1:
		diags = diags.Append(errDiag("Expected a single argument: NAME", "Usage: rdmaform workspace "+sub+" "+synopsis))
	case named:
		w.Name = fs.Arg(0)
	}
	return w, diags
}
