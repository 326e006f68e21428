package command

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/rdmaform/rdmaform/command/arguments"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/state"
	"github.com/rdmaform/rdmaform/tui/termsafe"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

func init() {
	register(command{Name: "console", Synopsis: "Evaluate expressions against the configuration", Run: runConsole})
}

const consoleHelp = `Usage: rdmaform [global options] console [options]

  Reads expressions from standard input and prints their values, evaluated
  against the configuration in the current directory (or none): variables,
  locals, listener.NAME.port, functions, and type(VALUE), which prints
  VALUE's type (in the console only). Objects the state records read
  as recorded (endpoint.NAME.qp_num is the QP apply made); the others'
  values known only after apply print as (known after apply). Sets, lists
  and maps print as toset(...), tolist(...) and tomap(...). An expression
  whose brackets or heredoc are open goes on on the next lines. Type exit
  or end the input to leave.

Options:
  -var 'name=value'   Set a variable (repeatable).
  -var-file=FILE      Load variable values from a file (repeatable).
  -no-color           Do not colour diagnostics.
`

func runConsole(args []string, s Meta) int {
	a, diags := arguments.ParseConsole(args)
	if a.Help {
		fmt.Fprint(s.Err, consoleHelp)
		return 0
	}
	if diags.HasErrors() {
		s.argDiagnostics(diags, consoleHelp)
		return 1
	}
	vars := a.Vars.Args
	l := newConfigLoader(s.startDir)
	l.CoreVersion = Version
	// Preconditions are plan's checks: a failing one does not stop the
	// console from evaluating expressions, as in Terraform.
	l.SkipPreconditions = true
	l.Validate = true // variables without a value, and what they decide, are unknown
	l.Console = true  // type()
	cfg, diags := l.Load(".", config.VarInputs{Args: vars, Env: os.Environ()})
	if len(diags) == 1 && diags[0].Summary == "No configuration files" {
		// As terraform console: functions work without a configuration.
		nl := newConfigLoader(s.startDir)
		nl.Console = true
		cfg, diags = nl.LoadSources(map[string][]byte{"<none>" + config.HCLSuffix: nil}, config.VarInputs{Args: vars, Env: os.Environ()})
	}
	color := !a.View.NoColor && cfgIsTerminal(s.Err)
	if diags.HasErrors() {
		_ = l.WriteDiagnostics(s.Err, diags, color, 0)
		return 1
	}
	// As terraform console, objects read as the state records them: their
	// QP numbers and ports, not (known after apply).
	st, ok := loadState(s)
	if !ok {
		return 1
	}
	recorded := stateValues(st)
	interactive := s.stdinIsTerminal()
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
			val, ed := cfg.EvalWith(expr, recorded)
			d = append(d, ed...)
			ty, isType, inside := config.ConsoleType(val)
			if inside {
				d = append(d, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid use of type function",
					Detail:  "The console-only \"type\" function cannot be used as part of an expression: give it alone, as type(VALUE).",
					Subject: expr.Range().Ptr()})
			}
			if !d.HasErrors() {
				out := config.FormatConsoleValue(val)
				if isType { // as terraform console, type(x) prints x's type
					out = config.FormatType(ty)
				}
				fmt.Fprintln(s.Out, termsafe.Text(out))
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

// stateValues looks up objects' values in st (nil: none), decoded once
// each, with their sensitive attributes marked.
func stateValues(st *state.State) func(addrs.Instance) (cty.Value, bool) {
	decoded := map[addrs.Instance]cty.Value{}
	return func(a addrs.Instance) (cty.Value, bool) {
		if v, ok := decoded[a]; ok {
			return v, v != cty.NilVal
		}
		var v cty.Value
		if st == nil {
			return cty.NilVal, false
		}
		if o := st.Object(a); o != nil && len(o.Attributes) > 0 {
			if schema := config.Schema(a.Kind); schema != nil {
				if dv, err := ctyjson.Unmarshal(o.Attributes, schema.ImpliedType()); err == nil {
					paths := make([]cty.Path, 0, len(o.SensitiveAttributes))
					for _, p := range o.SensitiveAttributes {
						var path cty.Path
						for _, name := range p {
							path = path.GetAttr(name)
						}
						paths = append(paths, path)
					}
					v = config.MarkSensitive(dv, paths)
				}
			}
		}
		decoded[a] = v
		return v, v != cty.NilVal
	}
}
