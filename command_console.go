package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/rdmaform/rdmaform/config"
)

func init() {
	register(command{Name: "console", Synopsis: "Evaluate expressions against the configuration", Run: runConsole})
}

const consoleHelp = `Usage: rdmaform [global options] console [options]

  Reads one expression per line from standard input and prints its value,
  evaluated against the configuration in the current directory: variables,
  locals, listener.NAME.port, functions. Values known only after apply
  print as (known after apply). Type exit or end the input to leave.

Options:
  -var 'name=value'   Set a variable (repeatable).
  -var-file=FILE      Load variable values from a file (repeatable).
  -no-color           Do not colour diagnostics.
`

func runConsole(args []string, s streams) int {
	fs := flag.NewFlagSet("console", flag.ContinueOnError)
	fs.SetOutput(s.Err)
	fs.Usage = func() { fmt.Fprint(s.Err, consoleHelp) }
	var vars config.VarArgs
	vars.Register(fs)
	noColor := fs.Bool("no-color", false, "")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	l := config.NewLoader()
	l.CoreVersion = Version
	cfg, diags := l.Load(".", config.VarInputs{Args: vars, Env: os.Environ()})
	color := !*noColor && cfgIsTerminal(s.Err)
	if diags.HasErrors() {
		_ = l.WriteDiagnostics(s.Err, diags, color, 0)
		return 1
	}
	status := 0
	sc := bufio.NewScanner(s.In)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if line == "exit" {
			break
		}
		name := fmt.Sprintf("<console-input-%d>", n)
		expr, d := hclsyntax.ParseExpression([]byte(line), name, hcl.InitialPos)
		if !d.HasErrors() {
			val, ed := cfg.Eval(expr)
			d = append(d, ed...)
			if !d.HasErrors() {
				fmt.Fprintln(s.Out, config.FormatValue(val, 0))
				continue
			}
		}
		wr := hcl.NewDiagnosticTextWriter(s.Err, map[string]*hcl.File{name: {Bytes: []byte(line)}}, 0, color)
		_ = wr.WriteDiagnostics(d)
		status = 1
	}
	return status
}
