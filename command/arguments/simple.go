package arguments

import "fmt"

// Validate is the validate command's options.
type Validate struct {
	View        View // JSON, NoColor
	DeviceCheck bool // -device-check
	Help        bool
}

// ParseValidate parses validate's command line.
func ParseValidate(args []string) (*Validate, Diagnostics) {
	v := &Validate{}
	fs := newFlagSet("validate")
	fs.BoolVar(&v.View.JSON, "json", false, "")
	fs.BoolVar(&v.View.NoColor, "no-color", false, "")
	fs.BoolVar(&v.DeviceCheck, "device-check", false, "")
	help, diags := parseFlags(fs, "validate", args)
	if help {
		return &Validate{Help: true}, nil
	}
	parsed := len(diags) == 0
	if parsed && fs.NArg() > 0 {
		diags = diags.Append(errDiag("validate takes no arguments; use -chdir=DIR to validate another directory.", ""))
	}
	return v, diags
}

// Fmt is the fmt command's options.
type Fmt struct {
	List, Write, Diff, Check, Recursive bool
	View                                View // NoColor
	// Paths are the files and directories to format ("-": standard
	// input); "." when none is given.
	Paths []string
	Help  bool
}

// ParseFmt parses fmt's command line.
func ParseFmt(args []string) (*Fmt, Diagnostics) {
	f := &Fmt{}
	fs := newFlagSet("fmt")
	fs.BoolVar(&f.List, "list", true, "")
	fs.BoolVar(&f.Write, "write", true, "")
	fs.BoolVar(&f.Diff, "diff", false, "")
	fs.BoolVar(&f.Check, "check", false, "")
	fs.BoolVar(&f.Recursive, "recursive", false, "")
	fs.BoolVar(&f.View.NoColor, "no-color", false, "")
	help, diags := parseFlags(fs, "fmt", args)
	if help {
		return &Fmt{Help: true}, nil
	}
	if f.Check {
		f.Write = false // -check only reports
	}
	f.Paths = fs.Args()
	if len(f.Paths) == 0 {
		f.Paths = []string{"."}
	}
	return f, diags
}

// Version is the version command's options.
type Version struct {
	View View // JSON
	Help bool
}

// ParseVersion parses version's command line.
func ParseVersion(args []string) (*Version, Diagnostics) {
	v := &Version{}
	fs := newFlagSet("version")
	fs.BoolVar(&v.View.JSON, "json", false, "")
	acceptNoColor(fs)
	help, diags := parseFlags(fs, "version", args)
	if help {
		return &Version{Help: true}, nil
	}
	parsed := len(diags) == 0
	if parsed && fs.NArg() > 0 {
		diags = diags.Append(errDiag(fmt.Sprintf("version takes no arguments, got %q", fs.Args()), ""))
	}
	return v, diags
}

// Console is the console command's options.
type Console struct {
	Vars Vars
	View View // NoColor
	Help bool
}

// ParseConsole parses console's command line.
func ParseConsole(args []string) (*Console, Diagnostics) {
	c := &Console{}
	fs := newFlagSet("console")
	c.Vars.register(fs)
	fs.BoolVar(&c.View.NoColor, "no-color", false, "")
	help, diags := parseFlags(fs, "console", args)
	if help {
		return &Console{Help: true}, nil
	}
	return c, diags
}

// Graph is the graph command's options.
type Graph struct {
	Type    string // -type: plan, plan-refresh-only, plan-destroy or apply
	Destroy bool   // -type=plan-destroy
	Help    bool
}

// ParseGraph parses graph's command line.
func ParseGraph(args []string) (*Graph, Diagnostics) {
	g := &Graph{}
	fs := newFlagSet("graph")
	acceptNoColor(fs)
	fs.StringVar(&g.Type, "type", "plan", "")
	fs.Bool("draw-cycles", false, "") // a cycle is refused, never drawn
	help, diags := parseFlags(fs, "graph", args)
	if help {
		return &Graph{Help: true}, nil
	}
	parsed := len(diags) == 0
	switch g.Type {
	case "plan", "apply", "plan-refresh-only":
	case "plan-destroy":
		g.Destroy = true
	default:
		diags = diags.Append(errDiag("Invalid -type="+g.Type, "The graph types are plan, plan-refresh-only, plan-destroy and apply."))
	}
	if parsed && fs.NArg() > 0 {
		diags = diags.Append(errDiag("graph takes no arguments; use -chdir=DIR to graph another directory.", ""))
	}
	return g, diags
}

// Status is the status command's options.
type Status struct {
	View  View   // JSON
	Watch bool   // -watch
	Agent string // -agent: the agent's socket
	Help  bool
}

// ParseStatus parses status's command line.
func ParseStatus(args []string) (*Status, Diagnostics) {
	st := &Status{}
	fs := newFlagSet("status")
	fs.BoolVar(&st.View.JSON, "json", false, "")
	fs.BoolVar(&st.Watch, "watch", false, "")
	fs.StringVar(&st.Agent, "agent", "", "")
	acceptNoColor(fs) // the table has no colour
	help, diags := parseFlags(fs, "status", args)
	if help {
		return &Status{Help: true}, nil
	}
	parsed := len(diags) == 0
	if parsed && fs.NArg() > 0 {
		diags = diags.Append(errDiag(fmt.Sprintf("status takes no arguments, got %q", fs.Args()), ""))
	}
	return st, diags
}

// Monitor is the monitor command's options.
type Monitor struct {
	Agent string // -agent: the agent's socket
	View  View   // NoColor
	// Demo feeds the screen synthetic objects, labelled as such, to try
	// or test the monitor without an agent; it is left out of the usage
	// because it shows no fabric.
	Demo bool
	Help bool
}

// ParseMonitor parses monitor's command line.
func ParseMonitor(args []string) (*Monitor, Diagnostics) {
	m := &Monitor{}
	fs := newFlagSet("monitor")
	fs.StringVar(&m.Agent, "agent", "", "")
	fs.BoolVar(&m.View.NoColor, "no-color", false, "")
	fs.BoolVar(&m.Demo, "demo", false, "")
	help, diags := parseFlags(fs, "monitor", args)
	if help {
		return &Monitor{Help: true}, nil
	}
	parsed := len(diags) == 0
	if parsed && fs.NArg() > 0 {
		diags = diags.Append(errDiagHelp(fmt.Sprintf("monitor takes no arguments, got %q", fs.Args())))
	}
	return m, diags
}
