package command

import (
	"encoding/json"
	"flag"
	"fmt"
	"runtime"
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
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(s.Err)
	fs.Usage = func() { fmt.Fprint(s.Err, versionHelp) }
	jsonOut := fs.Bool("json", false, "")
	acceptNoColor(fs)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(s.Err, "Error: version takes no arguments, got %q\n", fs.Args())
		return 1
	}
	if *jsonOut {
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
