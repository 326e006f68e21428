package arguments

import "strings"

// Apply is the options of apply, destroy and refresh, which are apply's
// with -destroy, or -refresh-only -auto-approve.
type Apply struct {
	// Name is the command as its messages name it: destroy for apply
	// -destroy.
	Name      string
	State     State
	Operation Operation
	Vars      Vars
	View      View
	// Input: false when the command must never ask (-input=false).
	Input       bool
	AutoApprove bool // -auto-approve
	// AutoApproveImplied: refresh's -auto-approve, which the user did
	// not give (refresh still asks before it drops what a restarted
	// agent lost).
	AutoApproveImplied bool
	Monitor            bool   // -monitor
	PlanPath           string // the saved plan to apply, or ""
	// Help: -help was asked for; nothing else is set.
	Help bool
}

// ParseApply parses apply's command line.
func ParseApply(args []string) (*Apply, Diagnostics) { return parseApply("apply", args, false) }

// ParseDestroy parses destroy's command line.
func ParseDestroy(args []string) (*Apply, Diagnostics) { return parseApply("destroy", args, false) }

// ParseRefresh parses refresh's command line: apply's, after -refresh-only,
// with -auto-approve implied when not given. A -help anywhere is
// refresh's help.
func ParseRefresh(args []string) (*Apply, Diagnostics) {
	for _, a := range args {
		if isHelp(a) {
			return &Apply{Name: "refresh", Help: true}, nil
		}
	}
	return parseApply("refresh", append([]string{"-refresh-only"}, args...), true)
}

// parseApply parses apply's options as name; impliedAutoApprove (refresh)
// approves when -auto-approve is not given, and says it was implied.
func parseApply(name string, args []string, impliedAutoApprove bool) (*Apply, Diagnostics) {
	a := &Apply{Name: name}
	destroy := name == "destroy"
	fs := newFlagSet(name)
	a.Vars.register(fs)
	a.Operation.register(fs)
	fs.BoolVar(&a.Input, "input", InputDefault(), "")
	fs.BoolVar(&a.View.CompactWarnings, "compact-warnings", false, "")
	fs.BoolVar(&a.View.NoColor, "no-color", false, "")
	a.State.register(fs)
	if !destroy {
		fs.BoolVar(&a.Operation.Destroy, "destroy", false, "") // apply -destroy is destroy
	}
	fs.BoolVar(&a.AutoApprove, "auto-approve", false, "")
	fs.BoolVar(&a.Monitor, "monitor", false, "")
	fs.BoolVar(&a.View.JSON, "json", false, "")
	help, diags := parseFlags(fs, name, args)
	if help {
		return &Apply{Name: name, Help: true}, nil
	}
	if impliedAutoApprove && !a.AutoApprove {
		a.AutoApprove, a.AutoApproveImplied = true, true
	}
	parsed := len(diags) == 0
	switch {
	case a.View.JSON && a.Monitor:
		diags = diags.Append(errDiag("-json and -monitor cannot be used together", "-json prints every change as JSON; -monitor draws the live table in the terminal."))
	case parsed && a.View.JSON && !a.AutoApprove && fs.NArg() == 0:
		diags = diags.Append(errDiag("Plan file or auto-approve required",
			"rdmaform cannot ask for interactive approval when -json is set. You can either\napply a saved plan file, or enable the -auto-approve option."))
	}
	if a.Operation.Destroy {
		destroy, a.Name = true, "destroy"
	}
	a.Operation.Destroy = destroy
	diags = append(diags, a.Operation.parse(fs)...)
	switch {
	case parsed && fs.NArg() > 1:
		detail := ""
		if rest := fs.Args()[1:]; strings.HasPrefix(rest[0], "-") {
			detail = "Options go before the plan file, as flags end at the first argument: rdmaform " + a.Name + " " + strings.Join(rest, " ") + " " + fs.Arg(0)
		}
		diags = diags.Append(errDiag(a.Name+" takes at most one argument, a saved plan", detail))
	case parsed && fs.NArg() == 1 && destroy:
		diags = diags.Append(errDiag("A saved plan cannot be applied with -destroy",
			"The saved plan says whether it destroys: make it with \"rdmaform plan -destroy -out=FILE\",\nthen run \"rdmaform apply FILE\"."))
	case parsed && fs.NArg() == 1 && a.Operation.RefreshOnly:
		diags = diags.Append(errDiag("A saved plan cannot be applied with -refresh-only",
			"The saved plan says what it changes: make it with \"rdmaform plan -refresh-only -out=FILE\",\nthen run \"rdmaform apply FILE\"."))
	case parsed && fs.NArg() == 1:
		if !a.Vars.Empty() || len(a.Operation.targets)+len(a.Operation.replace) > 0 {
			diags = diags.Append(errDiag("Can't set variables, -target or -replace when applying a saved plan", "The saved plan already records them."))
		}
		a.PlanPath = fs.Arg(0)
	}
	return a, diags
}
