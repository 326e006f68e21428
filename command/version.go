package command

import (
	"encoding/json"
	"fmt"
	"runtime"

	"github.com/rdmaform/rdmaform/command/arguments"
)

func init() {
	register(command{Name: "version", Synopsis: "Show the rdmaform version", Run: runVersion})
}

const versionHelp = `Usage: rdmaform [global options] version [options]

  Shows the rdmaform version.

Options:
  -json  Print the version as JSON: {"rdmaform_version": ..., "platform": ...}.
`

func runVersion(args []string, s Meta) int {
	s = s.withJSONErrors(args)
	a, diags := arguments.ParseVersion(args)
	if a.Help {
		fmt.Fprint(s.Err, versionHelp)
		return 0
	}
	if diags.HasErrors() {
		s.argDiagnostics(diags, versionHelp)
		return 1
	}
	if a.View.JSON {
		b, _ := json.MarshalIndent(struct {
			Version  string `json:"rdmaform_version"`
			Platform string `json:"platform"`
		}{Version, runtime.GOOS + "_" + runtime.GOARCH}, "", "  ")
		fmt.Fprintf(s.Out, "%s\n", b)
		return 0
	}
	fmt.Fprintf(s.Out, "rdmaform v%s\n", Version)
	return 0
}
