package arguments

import "fmt"

// MetadataFunctions is metadata functions' options.
type MetadataFunctions struct {
	View View // JSON
	Help bool
}

// ParseMetadataFunctions parses metadata functions' command line: -json
// is required, as Terraform's, the output being for programs.
func ParseMetadataFunctions(args []string) (*MetadataFunctions, Diagnostics) {
	m := &MetadataFunctions{}
	fs := newFlagSet("metadata functions")
	fs.BoolVar(&m.View.JSON, "json", false, "")
	acceptNoColor(fs)
	help, diags := parseFlags(fs, "metadata functions", args)
	if help {
		return &MetadataFunctions{Help: true}, nil
	}
	if len(diags) > 0 {
		return m, diags
	}
	if fs.NArg() > 0 {
		diags = diags.Append(errDiag(fmt.Sprintf("metadata functions takes no arguments, got %q", fs.Args()), ""))
	}
	if !m.View.JSON {
		diags = diags.Append(errDiagHelp("The `rdmaform metadata functions` command requires the `-json` flag."))
	}
	return m, diags
}
