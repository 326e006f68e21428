package arguments

// Plan is the plan command's options.
type Plan struct {
	State     State
	Operation Operation
	Vars      Vars
	View      View
	// Input: false when the command must never ask (-input=false).
	Input   bool
	OutPath string // -out
	// GenerateConfigOut: -generate-config-out, the file to write the
	// blocks of import blocks' objects the configuration lacks.
	GenerateConfigOut string
	DetailedExitCode  bool // -detailed-exitcode
	// Help: -help was asked for; nothing else is set.
	Help bool
}

// ParsePlan parses plan's command line.
func ParsePlan(args []string) (*Plan, Diagnostics) {
	p := &Plan{}
	fs := newFlagSet("plan")
	p.Vars.register(fs)
	p.Operation.register(fs)
	fs.BoolVar(&p.Input, "input", InputDefault(), "")
	fs.BoolVar(&p.View.CompactWarnings, "compact-warnings", false, "")
	fs.BoolVar(&p.View.NoColor, "no-color", false, "")
	p.State.register(fs)
	fs.BoolVar(&p.Operation.Destroy, "destroy", false, "")
	fs.BoolVar(&p.DetailedExitCode, "detailed-exitcode", false, "")
	fs.BoolVar(&p.View.JSON, "json", false, "")
	fs.StringVar(&p.OutPath, "out", "", "")
	fs.StringVar(&p.GenerateConfigOut, "generate-config-out", "", "")
	help, diags := parseFlags(fs, "plan", args)
	if help {
		return &Plan{Help: true}, nil
	}
	parsed := len(diags) == 0
	if parsed && fs.NArg() > 0 {
		diags = diags.Append(errDiag("plan takes no arguments; use -chdir=DIR to plan another directory.", ""))
	}
	diags = append(diags, p.Operation.parse(fs)...)
	return p, diags
}
