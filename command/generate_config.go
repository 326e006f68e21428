package command

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/rdmaform/rdmaform/apply"
	"github.com/rdmaform/rdmaform/command/arguments"
	"github.com/rdmaform/rdmaform/config"
)

// generateImportConfig is plan -generate-config-out=FILE, as Terraform
// 1.5's: for each import block whose target the configuration does not
// declare, it writes the block of the object the agent holds into FILE,
// which the plan then reads with the rest. It reports whether the plan
// may go on.
func generateImportConfig(s Meta, a *arguments.Plan) bool {
	path := a.GenerateConfigOut
	if _, err := os.Lstat(path); err == nil {
		s.showError("Target generated file already exists", "rdmaform can only write generated config into a new file. Either choose a different target location or move all existing configuration out of the target file, delete it and try again.")
		return false
	}
	if !inThisDirectory(path) || !strings.HasSuffix(path, config.HCLSuffix) {
		s.showError("Invalid -generate-config-out file", fmt.Sprintf("%s is not a configuration file of this directory: give a new NAME%s here, so that the plan reads the blocks written into it.", path, config.HCLSuffix))
		return false
	}
	l := newConfigLoader(s.startDir)
	l.CoreVersion = Version
	l.GenerateConfig = true
	intr := make(chan struct{}) // never closed: an interrupt ends the process here
	if a.Input && !a.View.JSON && s.stdinIsTerminal() {
		l.Ask = askVariable(s, intr)
	}
	cfg, diags := l.Load(".", config.VarInputs{Args: a.Vars.Args, Env: rdmaVarEnv()})
	if diags.HasErrors() {
		s.configDiagnostics(diags, l, 0)
		return false
	}
	// The plan reads the configuration again: the answers are given.
	a.Vars.Args = append(a.Vars.Args, l.Asked...)
	if len(l.ImportsToGenerate) == 0 {
		return true // nothing to generate, as Terraform writes no file then
	}
	blocks, diags := readImportedSpecs(s, cfg, l.ImportsToGenerate)
	if diags.HasErrors() {
		s.configDiagnostics(diags, l, 0)
		return false
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err == nil {
		_, err = f.Write(generatedConfig(blocks))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		s.showError("Failed to write the generated configuration", fmt.Sprintf("%v\nChoose another -generate-config-out file.", err))
		return false
	}
	if !a.View.JSON {
		fmt.Fprintf(s.Out, "rdmaform has generated configuration and written it to %s. Please review the\nconfiguration and edit it as necessary before adding it to version control.\n\n", path)
	}
	return true
}

// inThisDirectory reports whether path names a file directly in the
// working directory, the configuration's.
func inThisDirectory(path string) bool {
	abs, err := filepath.Abs(path)
	wd, werr := os.Getwd()
	return err == nil && werr == nil && filepath.Dir(abs) == wd
}

// readImportedSpecs asks the agent what each import's object was made
// with: the same object, under the same name, that apply then imports.
// The agent is not started: an agent that is not running holds nothing.
func readImportedSpecs(s Meta, cfg *config.Config, imports []*config.Import) ([]generatedBlock, hcl.Diagnostics) {
	fail := func(im *config.Import, detail string) hcl.Diagnostics {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: fmt.Sprintf("Cannot generate configuration for %s", im.To), Detail: detail, Subject: im.DeclRange.Ptr()}}
	}
	connect := s.connector()
	if connect == nil {
		return nil, fail(imports[0], errNoAgent+" -generate-config-out reads the objects from the agent.")
	}
	socket := ""
	if cfg.Settings != nil && cfg.Settings.Agent != nil {
		socket = cfg.Settings.Agent.Socket
	}
	ctx := context.Background()
	conn, err := connect(ctx, socket, s.Err, func() bool { return false })
	if err != nil {
		return nil, fail(imports[0], fmt.Sprintf("The agent does not answer (%v): an agent that is not running holds no object to import. Start it, or drop -generate-config-out.", err))
	}
	if conn.Close != nil {
		defer conn.Close()
	}
	reader, ok := conn.Fabric.(apply.SpecReader)
	if !ok {
		return nil, fail(imports[0], "This agent connection cannot say what its objects were made with.")
	}
	var blocks []generatedBlock
	var diags hcl.Diagnostics
	for _, im := range imports {
		h := apply.HandleIn(im.To, cfg.AgentNamespace())
		if im.ID != "" {
			h.Name = im.ID
		}
		spec, err := reader.ReadSpec(ctx, h)
		switch {
		case err != nil:
			diags = append(diags, fail(im, err.Error())...)
			continue
		case kindOf(spec) != string(im.To.Kind):
			diags = append(diags, fail(im, fmt.Sprintf("The agent's %s is a %s, not a %s.", h.Name, kindOf(spec), im.To.Kind))...)
			continue
		}
		blocks = append(blocks, generatedBlock{addr: im.To, id: h.Name, spec: spec})
	}
	return blocks, diags
}

// kindOf is the configuration's word for what spec makes.
func kindOf(spec apply.Spec) string {
	switch {
	case spec.ProtectionDomain != nil:
		return "protection_domain"
	case spec.Listener != nil:
		return "listener"
	case spec.Endpoint != nil:
		return "endpoint"
	}
	return "object"
}
