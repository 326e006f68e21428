package command

import (
	"context"
	"errors"
	"fmt"

	"github.com/rdmaform/rdmaform/apply"
	"github.com/rdmaform/rdmaform/command/arguments"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/state"
)

func init() {
	register(command{Name: "import", Synopsis: "Adopt an object the agent already holds into the state", Run: runImport})
}

const importHelp = `Usage: rdmaform [global options] import [options] ADDRESS [ID]

  Brings an object the agent already holds under rdmaform's management, as
  terraform import does: records it in the state as the configuration's
  ADDRESS, for example after the state was lost while the agent kept the
  objects. ID is the agent's name for the object ("rdmaform status" lists
  them); it defaults to the name rdmaform gives what it creates: ADDRESS,
  or ADDRESS@NAMESPACE with an agent namespace.

  The configuration must declare ADDRESS, and the object must be what it
  declares (else import says which attributes differ). Objects it refers
  to (its protection domain, its listener) are imported first.

Options:
  -var 'name=value'    Set a variable (repeatable).
  -var-file=FILE       Load variable values from a file (repeatable).
  -no-color            Do not colour the output.
  -lock=false          Do not lock the state.
  -lock-timeout=DUR    Retry a held state lock for this long.
`

func runImport(args []string, s Meta) (code int) {
	a, diags := arguments.ParseImport(args)
	if a.Help {
		fmt.Fprint(s.Err, importHelp)
		return 0
	}
	if diags.HasErrors() {
		s.argDiagnostics(diags, importHelp)
		return 1
	}
	addr := a.Addr
	color := !a.View.NoColor && cfgIsTerminal(s.Out)
	se, ok := openSession(s, a.Vars.Args, rdmaVarEnv(), lockOf(a.State), "OperationTypeImport", sessionOptions{color: color}, true)
	defer func() { se.close(code) }()
	if !ok {
		return 1
	}
	// By default, the name this configuration would have given the object.
	id := apply.HandleIn(addr, se.agentNamespace()).Name
	if a.ID != "" {
		id = a.ID
	}
	if se.cfg.Instances[addr] == nil {
		s.showError("Configuration for import target does not exist", fmt.Sprintf("The configuration for the given import target %s does not exist. Declare it\n(with the attributes of the object to import) before importing it.", addr))
		return 1
	}
	if se.prior != nil && se.prior.Object(addr) != nil {
		s.showError("Resource already managed by rdmaform", fmt.Sprintf("rdmaform is already managing an object for %s. To import to this address\nyou must first remove the existing object from the state (rdmaform state rm).", addr))
		return 1
	}
	if holder := stateHolderOf(se.prior, id); holder != nil {
		s.showError("Object already managed by rdmaform", fmt.Sprintf("The agent's %s is in the state already, as %s (an object keeps the name it\nwas made under when a moved block or \"state mv\" gives it a new address).\nImporting it again would manage one connection under two addresses.", id, holder.Addr))
		return 1
	}
	p, diags, ok := se.makePlan(&arguments.Operation{Refresh: true, ForImport: true})
	se.writeDiags(diags)
	if !ok {
		return 1
	}
	fmt.Fprintf(s.Out, "%s: Importing from ID %q...\n", addr, id)
	rec, err := se.m.OpenRecorder()
	if err != nil {
		s.showError("Failed to open the state for recording", err.Error())
		return 1
	}
	err = apply.Import(context.Background(), p, addr, id, apply.Options{Fabric: se.conn.Fabric, Recorder: rec, Config: se.cfg, Prior: se.prior})
	if cerr := rec.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("writing the state: %w", cerr)
	}
	switch {
	case errors.Is(err, apply.ErrNotImportable):
		s.showError(fmt.Sprintf("Cannot import %s", addr), fmt.Sprintf("The plan would not create %s, so there is nothing to import it as.", addr))
		return 1
	case err != nil:
		s.showError(fmt.Sprintf("Cannot import %s", addr), err.Error()) // the agent's words
		return 1
	}
	fmt.Fprintf(s.Out, "%s: Import prepared!\n  Prepared %s for import\n\n%s\n\n"+
		"The objects that were imported are shown above. They are now in your\n"+
		"rdmaform state and will henceforth be managed by rdmaform.\n",
		addr, addr.Kind, successLine("Import successful!", color))
	return 0
}

// stateHolderOf is the object of st the agent holds by name, or nil.
func stateHolderOf(st *state.State, name string) *state.Object {
	if st == nil {
		return nil
	}
	for _, o := range st.Objects {
		if planner.AgentHandle(o) == name {
			return o
		}
	}
	return nil
}
