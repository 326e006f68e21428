package command

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/rdmaform/rdmaform/command/arguments"
	"github.com/rdmaform/rdmaform/config"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

func init() {
	register(command{Name: "metadata", Synopsis: "Metadata related commands (metadata functions -json)", Run: runMetadata, Subcommands: true})
}

const metadataUsage = `Usage: rdmaform [global options] metadata <subcommand> [options] [args]

  Prints metadata about rdmaform, for programs (editors, language
  servers), as Terraform's metadata command. Subcommands:
    functions -json    The signatures of the functions expressions can call
`

const metadataFunctionsHelp = `Usage: rdmaform [global options] metadata functions -json

  Prints the signatures of the functions a configuration's expressions can
  call, in Terraform's machine-readable format (format_version 1.0, read
  by hashicorp/terraform-json's MetadataFunctions): for each, its
  description, return type, parameters and variadic parameter, with types
  in cty's JSON form.

Options:
  -json  Required: the output is JSON.
`

func runMetadata(args []string, s Meta) int {
	if len(args) == 0 {
		fmt.Fprint(s.Err, metadataUsage)
		return 1
	}
	switch args[0] {
	case "-help", "--help", "-h", "--h", "help":
		fmt.Fprint(s.Out, metadataUsage)
		return 0
	case "functions":
		return runMetadataFunctions(args[1:], s)
	}
	s.showError(fmt.Sprintf("rdmaform metadata has no subcommand %q.", args[0]), "")
	fmt.Fprint(s.Err, "\n"+metadataUsage)
	return 1
}

func runMetadataFunctions(args []string, s Meta) int {
	a, diags := arguments.ParseMetadataFunctions(args)
	if a.Help {
		fmt.Fprint(s.Err, metadataFunctionsHelp)
		return 0
	}
	if diags.HasErrors() {
		s.argDiagnostics(diags, metadataFunctionsHelp)
		return 1
	}
	b, err := json.Marshal(functionSignatures(config.Offered()))
	if err != nil {
		s.showError("Cannot encode the function signatures", err.Error())
		return 1
	}
	fmt.Fprintf(s.Out, "%s\n", b)
	return 0
}

// functionsJSON is Terraform's metadata functions document.
type functionsJSON struct {
	FormatVersion string                        `json:"format_version"`
	Signatures    map[string]*functionSignature `json:"function_signatures"`
}

type functionSignature struct {
	Description string           `json:"description,omitempty"`
	ReturnType  cty.Type         `json:"return_type"`
	Parameters  []*parameterJSON `json:"parameters,omitempty"`
	Variadic    *parameterJSON   `json:"variadic_parameter,omitempty"`
}

type parameterJSON struct {
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	IsNullable  bool     `json:"is_nullable,omitempty"`
	Type        cty.Type `json:"type"`
}

// functionSignatures describes funcs as Terraform does: the return type
// is the one for arguments of the parameters' types, "dynamic" when that
// depends on the arguments' values.
func functionSignatures(funcs map[string]function.Function) functionsJSON {
	out := functionsJSON{FormatVersion: "1.0", Signatures: make(map[string]*functionSignature, len(funcs))}
	names := make([]string, 0, len(funcs))
	for name := range funcs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		f := funcs[name]
		sig := &functionSignature{Description: config.Description(name)}
		var types []cty.Type
		for _, p := range f.Params() {
			sig.Parameters = append(sig.Parameters, parameterOf(p))
			types = append(types, p.Type)
		}
		if vp := f.VarParam(); vp != nil {
			sig.Variadic = parameterOf(*vp)
			types = append(types, vp.Type)
		}
		ret, err := f.ReturnType(types)
		if err != nil || ret == cty.NilType {
			ret = cty.DynamicPseudoType
		}
		sig.ReturnType = ret
		out.Signatures[name] = sig
	}
	return out
}

func parameterOf(p function.Parameter) *parameterJSON {
	ty := p.Type
	if ty.IsCapsuleType() {
		// try's and can's expression, which has no JSON type: any
		// expression, as Terraform lists it.
		ty = cty.DynamicPseudoType
	}
	return &parameterJSON{Name: p.Name, Description: p.Description, IsNullable: p.AllowNull, Type: ty}
}
