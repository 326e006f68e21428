package command

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/command/arguments"
	"github.com/rdmaform/rdmaform/command/views"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/rdmacm"
)

func init() {
	register(command{Name: "validate", Synopsis: "Check whether the configuration is valid", Run: runValidate})
}

const validateHelp = `Usage: rdmaform [global options] validate [options]

  Checks the configuration in the current directory (see -chdir): syntax,
  types, references, and the RDMA rules (ports, QP caps, private data
  limits, port spaces). Unlike Terraform's validate, which reads no
  variable files, it uses and checks the values in the files that load by
  themselves (rdmaform.rdmavars, *.auto.rdmavars and their .json forms),
  so a bad value there fails validation; like Terraform's, it takes no
  -var or -var-file and ignores RDMAFORM_VAR_*. Variables without a value
  are treated as unknown.

Options:
  -json          Print the result as JSON.
  -no-color      Do not colour the output.
  -device-check  Also check device-dependent values (max_qp_wr, max_sge,
                 device names) against the live RDMA devices.
`

func runValidate(args []string, s Meta) int {
	if !views.WantsJSON(args) {
		return validate(args, s)
	}
	// With -json, what validate says before it reads the configuration
	// (a bad flag, an argument) is in its document too, as Terraform's.
	errw, early := s.Err, &bytes.Buffer{}
	var earlyDiags hcl.Diagnostics
	s.Err = early
	s.diags = func(d hcl.Diagnostics, _ *config.Loader) { earlyDiags = append(earlyDiags, d...) }
	code := validate(args, s)
	if len(earlyDiags) == 0 {
		errw.Write(early.Bytes())
		return code
	}
	view := views.NewValidate(true, &views.View{Out: s.Out, Err: errw}, newConfigLoader(s.startDir))
	return view.Results(earlyDiags)
}

func validate(args []string, s Meta) int {
	a, diags := arguments.ParseValidate(args)
	if a.Help {
		fmt.Fprint(s.Err, validateHelp)
		return 0
	}
	if diags.HasErrors() {
		s.argDiagnostics(diags, validateHelp)
		return 1
	}
	l := newConfigLoader(s.startDir)
	l.Validate = true
	l.CoreVersion = Version
	cfg, diags := l.Load(".", config.VarInputs{})
	if !diags.HasErrors() {
		diags = append(diags, cfg.EndpointsOverMaxConnections(nil)...)
	}
	if a.DeviceCheck && !diags.HasErrors() {
		// A failed device query is an error of the validation, so that
		// -json reports it as one ("valid": false) rather than apart.
		deviceErr := func(detail string) {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot check the RDMA devices", Detail: detail})
		}
		if devs, err := s.devices(); errors.Is(err, rdmacm.ErrNotBuilt) {
			deviceErr("-device-check needs the rdmacm binding, which this build of rdmaform does not include; the configuration was checked without the devices.")
		} else if err != nil {
			deviceErr(fmt.Sprintf("-device-check could not query the RDMA devices: %v.", err))
		} else {
			diags = append(diags, config.CheckDevice(cfg, devs)...)
			diags = append(diags, planner.CheckPDDevices(cfg, cfg.SortedInstances(), devs)...)
		}
	}
	view := views.NewValidate(a.View.JSON, &views.View{Out: s.Out, Err: s.Err, NoColor: a.View.NoColor, Terminal: cfgIsTerminal}, l)
	return view.Results(diags)
}

// cfgIsTerminal reports whether w is a terminal that takes colour.
func cfgIsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	return isTerminal(f)
}
