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

  Reads expressions from standard input and prints their values, evaluated
  against the configuration in the current directory (or none): variables,
  locals, listener.NAME.port, functions. An expression whose brackets or
  heredoc are open goes on on the next lines. Values known only after
  apply print as (known after apply); sets, lists and maps as toset(...),
  tolist(...) and tomap(...). Type exit or end the input to leave.

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
	// Preconditions are plan's checks: a failing one does not stop the
	// console from evaluating expressions, as in Terraform.
	l.SkipPreconditions = true
	cfg, diags := l.Load(".", config.VarInputs{Args: vars, Env: os.Environ()})
	if len(diags) == 1 && diags[0].Summary == "No configuration files" {
		// As terraform console: functions work without a configuration.
		cfg, diags = config.NewLoader().LoadSources(map[string][]byte{"<none>" + config.HCLSuffix: nil}, config.VarInputs{Args: vars, Env: os.Environ()})
	}
	color := !*noColor && cfgIsTerminal(s.Err)
	if diags.HasErrors() {
		_ = l.WriteDiagnostics(s.Err, diags, color, 0)
		return 1
	}
	interactive := stdinIsTerminal(s.In)
	prompt := func(more bool) {
		if interactive {
			fmt.Fprint(s.Out, map[bool]string{false: "> ", true: "  "}[more])
		}
	}
	status := 0
	sc := bufio.NewScanner(s.In)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	prompt(false)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		// An expression whose brackets or heredoc are still open goes on
		// on the next lines, as in terraform console.
		for unfinished(line) {
			prompt(true)
			if !sc.Scan() {
				break
			}
			line += "\n" + sc.Text()
		}
		if line == "" {
			prompt(false)
			continue
		}
		if line == "exit" {
			break
		}
		name := fmt.Sprintf("<console-input-%d>", n)
		expr, d := hclsyntax.ParseExpression([]byte(line+"\n"), name, hcl.InitialPos)
		if !d.HasErrors() {
			val, ed := cfg.Eval(expr)
			d = append(d, ed...)
			if !d.HasErrors() {
				fmt.Fprintln(s.Out, config.FormatConsoleValue(val))
				prompt(false)
				continue
			}
		}
		wr := hcl.NewDiagnosticTextWriter(s.Err, map[string]*hcl.File{name: {Bytes: []byte(line)}}, 0, color)
		_ = wr.WriteDiagnostics(d)
		status = 1
		prompt(false)
	}
	return status
}

// unfinished reports whether src opens more brackets, parentheses,
// braces or heredocs than it closes.
func unfinished(src string) bool {
	tokens, _ := hclsyntax.LexExpression([]byte(src+"\n"), "", hcl.InitialPos)
	depth := 0
	for _, t := range tokens {
		switch t.Type {
		case hclsyntax.TokenOBrace, hclsyntax.TokenOBrack, hclsyntax.TokenOParen, hclsyntax.TokenOHeredoc, hclsyntax.TokenTemplateInterp, hclsyntax.TokenTemplateControl:
			depth++
		case hclsyntax.TokenCBrace, hclsyntax.TokenCBrack, hclsyntax.TokenCParen, hclsyntax.TokenCHeredoc, hclsyntax.TokenTemplateSeqEnd:
			depth--
		}
	}
	return depth > 0
}
