package arguments

import "fmt"

// Test is the test command's options.
type Test struct {
	Filters       []string // -filter, repeatable
	TestDirectory string   // -test-directory
	Verbose       bool
	Vars          Vars
	View          View // JSON, NoColor
	Help          bool
}

// ParseTest parses test's command line.
func ParseTest(args []string) (*Test, Diagnostics) {
	t := &Test{}
	fs := newFlagSet("test")
	fs.Var((*stringsFlag)(&t.Filters), "filter", "")
	fs.StringVar(&t.TestDirectory, "test-directory", "tests", "")
	fs.BoolVar(&t.Verbose, "verbose", false, "")
	t.Vars.register(fs)
	fs.BoolVar(&t.View.JSON, "json", false, "")
	fs.BoolVar(&t.View.NoColor, "no-color", false, "")
	help, diags := parseFlags(fs, "test", args)
	if help {
		return &Test{Help: true}, nil
	}
	if len(diags) == 0 && fs.NArg() > 0 {
		diags = diags.Append(errDiag("Too many command line arguments",
			fmt.Sprintf("test takes no arguments (%q is not an option); -filter=FILE runs one test file.\n\nFor more help on using this command, run:\n  rdmaform test -help", fs.Arg(0))))
	}
	return t, diags
}
