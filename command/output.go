package command

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/rdmaform/rdmaform/command/arguments"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/state"
	"github.com/rdmaform/rdmaform/tui/termsafe"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

func init() {
	register(command{Name: "output", Synopsis: "Show output values from the state", Run: runOutput})
}

const outputHelp = `Usage: rdmaform [global options] output [options] [NAME]

  Prints the output values recorded in the state, as Terraform's output
  does: every output as NAME = VALUE (a sensitive one as <sensitive>), or
  NAME's value alone (shown even when sensitive, since it was asked for by
  name). Apply records the outputs: one added to the configuration shows
  after the next apply.

Options:
  -json        Print JSON: every output with its value, type and whether it
               is sensitive, or NAME's value.
  -raw         Print NAME's value, a string, number or bool, without quotes
               or a newline, for scripts.
  -no-color    Accepted for Terraform compatibility: output has no colour.
`

// runOutput implements `rdmaform output [-json|-raw] [-no-color] [NAME]` as Terraform
// does: all outputs as NAME = VALUE (sensitive ones hidden), or one
// output's value (shown even if sensitive, since it was asked for by name).
func runOutput(args []string, s Meta) int {
	s = s.withJSONErrors(args)
	a, diags := arguments.ParseOutput(args)
	if a.Help {
		fmt.Fprint(s.Err, outputHelp)
		return 0
	}
	if diags.HasErrors() {
		s.argDiagnostics(diags, outputHelp)
		return 1
	}
	st, ok := loadState(s)
	if !ok {
		return 1
	}
	if st == nil {
		st = state.New()
	}
	if a.Name == "" {
		if a.View.JSON {
			// Indented, as terraform output -json prints all outputs.
			b, err := json.MarshalIndent(outputsJSON(st), "", "  ")
			if err != nil {
				s.showErrorText(err.Error())
				return 1
			}
			fmt.Fprintln(s.Out, string(b))
			return 0
		}
		if len(st.Outputs) == 0 {
			s.showWarning("No outputs found", "The state has no outputs. Define an output in the configuration with the\n`output` keyword and run `rdmaform apply` for it to become available.")
			return 0
		}
		for _, n := range st.OutputNames() {
			o := st.Outputs[n]
			if o.Sensitive {
				fmt.Fprintf(s.Out, "%s = <sensitive>\n", termsafe.String(n))
			} else {
				fmt.Fprintf(s.Out, "%s = %s\n", termsafe.String(n), termsafe.Text(formatOutput(o)))
			}
		}
		return 0
	}
	name := a.Name
	o := st.Outputs[name]
	if o == nil {
		s.showError(fmt.Sprintf("Output %q not found", name), "The output variable requested could not be found in the state. If you\nrecently added it to the configuration, run `rdmaform apply`: the state is\nnot updated with new outputs until then.")
		return 1
	}
	switch {
	case a.View.JSON:
		var b bytes.Buffer
		if err := json.Compact(&b, o.Value); err != nil {
			b.Write(o.Value)
		}
		fmt.Fprintln(s.Out, b.String())
	case a.Raw:
		var v any
		dec := json.NewDecoder(bytes.NewReader(o.Value))
		dec.UseNumber()
		dec.Decode(&v)
		switch v := v.(type) {
		case string:
			fmt.Fprint(s.Out, v)
		case json.Number, bool:
			fmt.Fprint(s.Out, v)
		default:
			s.showError("Unsupported value for raw output", fmt.Sprintf("The -raw option only supports strings, numbers, and boolean values, but\noutput value %q is not one. Use -json instead.", name))
			return 1
		}
	default:
		fmt.Fprintln(s.Out, termsafe.Text(formatOutput(o))) // a heredoc holds the string as it is
	}
	return 0
}

// formatOutput shows an output's value as terraform output does, in the
// console's syntax: its type says tolist, toset or tomap where a
// collection is not a tuple or an object. A state without the type shows
// the JSON value in HCL syntax.
func formatOutput(o *state.Output) string {
	if len(o.Type) > 0 {
		if ty, err := ctyjson.UnmarshalType(o.Type); err == nil {
			if v, err := ctyjson.Unmarshal(o.Value, ty); err == nil {
				return config.FormatConsoleValue(v)
			}
		}
	}
	return renderValue(o.Value, "")
}
