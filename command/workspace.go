package command

import (
	"fmt"
	"os"

	"github.com/rdmaform/rdmaform/command/arguments"
	"github.com/rdmaform/rdmaform/config"
)

func init() {
	register(command{Name: "workspace", Synopsis: "Workspace management", Run: runWorkspace, Subcommands: true})
}

const workspaceUsage = `Usage: rdmaform [global options] workspace <subcommand> [options] [args]

  Workspaces, as Terraform's: each keeps its own state for the same
  configuration, and the agent holds each one's objects apart (under the
  agent namespace NAME, or NAMESPACE.NAME with an agent { namespace }
  setting). rdmaform.workspace is the selected one's name in expressions,
  for example to give each workspace its own ports. Subcommands:
    list                    List the workspaces; * marks the selected one
    show                    Print the selected workspace's name
    new NAME                Make a workspace and select it
    select [-or-create] NAME
                            Select a workspace (-or-create: make it first
                            when it does not exist)
    delete [-force] NAME    Delete a workspace and its state (-force: even
                            when its state still records objects)

  The local backend keeps workspace NAME's state in
  rdmaform.rdmastate.d/NAME/rdmaform.rdmastate; etcd under PREFIX/env:/NAME/.
  The selection is recorded in .rdmaform/environment; RDMAFORM_WORKSPACE
  overrides it.
`

// workspaceHelps are the subcommands' helps, as "rdmaform workspace
// SUBCOMMAND -help" prints them.
var workspaceHelps = map[string]string{
	"list": `Usage: rdmaform [global options] workspace list [options]

  Lists the workspaces of the configuration's backend, as Terraform's
  workspace list does; * marks the selected one.

Options:
  -no-color    Accepted for Terraform compatibility: workspace list prints
               no colour.
`,
	"show": `Usage: rdmaform [global options] workspace show [options]

  Prints the name of the selected workspace, as Terraform's workspace show
  does (RDMAFORM_WORKSPACE, when set, selects it).

Options:
  -no-color    Accepted for Terraform compatibility: workspace show prints
               no colour.
`,
	"new": `Usage: rdmaform [global options] workspace new [options] NAME

  Makes a workspace with an empty state of its own and selects it, as
  Terraform's workspace new does. Its objects are held by the agent under
  the namespace NAME (NAMESPACE.NAME with an agent { namespace } setting),
  apart from the other workspaces' objects.

Options:
  -no-color          Accepted for Terraform compatibility: workspace new
                     prints no colour.
  -lock=false        Accepted for Terraform compatibility: a new workspace's
  -lock-timeout=DUR  state is empty, with nothing to lock.
`,
	"select": `Usage: rdmaform [global options] workspace select [options] NAME

  Selects the workspace NAME, as Terraform's workspace select does: the
  next commands use its state, and rdmaform.workspace is its name in
  expressions. The selection is recorded in .rdmaform/environment.

Options:
  -or-create    Make the workspace first when it does not exist.
  -no-color     Accepted for Terraform compatibility: workspace select
                prints no colour.
`,
	"delete": `Usage: rdmaform [global options] workspace delete [options] NAME

  Deletes the workspace NAME and its state, as Terraform's workspace
  delete does. It refuses the selected workspace and the default one, and
  a workspace whose state still records objects unless -force: those
  objects would stay in the agent with no state to manage them, so
  destroy them first.

Options:
  -force               Delete the workspace even when its state records
                       objects (the agent keeps them).
  -lock=false          Do not lock the state.
  -lock-timeout=DUR    Retry a held state lock for this long.
  -no-color            Accepted for Terraform compatibility: workspace
                       delete prints no colour.
`,
}

func runWorkspace(args []string, s Meta) int {
	if len(args) == 0 {
		fmt.Fprint(s.Err, workspaceUsage)
		return 1
	}
	switch args[0] {
	case "-help", "--help", "-h", "--h", "help":
		fmt.Fprint(s.Out, workspaceUsage)
		return 0
	}
	sub := map[string]func([]string, Meta) int{
		"list": runWorkspaceList, "show": runWorkspaceShow, "new": runWorkspaceNew,
		"select": runWorkspaceSelect, "delete": runWorkspaceDelete,
	}[args[0]]
	if sub == nil {
		s.showError(fmt.Sprintf("rdmaform workspace has no subcommand %q.", args[0]), "")
		fmt.Fprint(s.Err, "\n"+workspaceUsage)
		return 1
	}
	return sub(args[1:], s)
}

// workspaceArgs parses a subcommand's options and its NAME, if it takes
// one; when it fails, code is the exit status.
func workspaceArgs(sub string, args []string, s Meta) (a *arguments.Workspace, code int, ok bool) {
	a, diags := arguments.ParseWorkspace(sub, args)
	if a.Help {
		fmt.Fprint(s.Err, workspaceHelps[sub])
		return nil, 0, false
	}
	if diags.HasErrors() {
		s.argDiagnostics(diags, workspaceHelps[sub])
		return nil, 1, false
	}
	if sub == "new" || sub == "select" || sub == "delete" {
		if err := checkWorkspaceName(a.Name); err != nil {
			s.showErrorText(err.Error())
			return nil, 1, false
		}
	}
	return a, 0, true
}

// workspaceBackend is the configured backend, after the checks every
// state command makes (the one init recorded).
func workspaceBackend(s Meta) (*backendConfig, bool) {
	b, ok := configuredBackend(".", s)
	if !ok {
		return nil, false
	}
	return b, checkInitialized(".", b, s)
}

// workspaceBackendHas is workspaceBackend, and whether it has workspace
// name.
func workspaceBackendHas(s Meta, name string) (b *backendConfig, exists, ok bool) {
	if b, ok = workspaceBackend(s); !ok {
		return nil, false, false
	}
	exists, err := b.hasWorkspace(".", name)
	if err != nil {
		s.showError("Failed to list the workspaces", err.Error())
		return nil, false, false
	}
	return b, exists, true
}

// overridden refuses to change the selection while RDMAFORM_WORKSPACE
// makes it.
func overridden(s Meta) bool {
	if v := os.Getenv(workspaceEnv); v != "" {
		s.showError(fmt.Sprintf("The selected workspace is currently overridden using the %s\nenvironment variable (%q). To select another workspace, change or unset it.", workspaceEnv, v), "")
		return true
	}
	return false
}

func runWorkspaceList(args []string, s Meta) int {
	if _, code, ok := workspaceArgs("list", args, s); !ok {
		return code
	}
	b, ok := workspaceBackend(s)
	if !ok {
		return 1
	}
	names, err := b.workspaces(".")
	if err != nil {
		s.showError("Failed to list the workspaces", err.Error())
		return 1
	}
	current := workspaceOrDefault(".")
	for _, n := range names {
		mark := " "
		if n == current {
			mark = "*"
		}
		fmt.Fprintf(s.Out, "%s %s\n", mark, n)
	}
	fmt.Fprintln(s.Out)
	return 0
}

func runWorkspaceShow(args []string, s Meta) int {
	if _, code, ok := workspaceArgs("show", args, s); !ok {
		return code
	}
	name, err := currentWorkspace(".")
	if err != nil {
		s.showErrorText(err.Error())
		return 1
	}
	fmt.Fprintln(s.Out, name)
	return 0
}

func runWorkspaceNew(args []string, s Meta) int {
	a, code, ok := workspaceArgs("new", args, s)
	if !ok {
		return code
	}
	name := a.Name
	if overridden(s) {
		return 1
	}
	b, exists, ok := workspaceBackendHas(s, name)
	if !ok {
		return 1
	}
	if exists {
		s.showError(fmt.Sprintf("Workspace %q already exists", name), "")
		return 1
	}
	return makeAndSelect(b, name, s)
}

func makeAndSelect(b *backendConfig, name string, s Meta) int {
	if err := b.createWorkspace(".", name); err != nil {
		s.showError(fmt.Sprintf("Failed to make workspace %q", name), err.Error())
		return 1
	}
	if err := recordWorkspace(".", name); err != nil {
		s.showError(fmt.Sprintf("Failed to select workspace %q", name), err.Error())
		return 1
	}
	fmt.Fprintf(s.Out, "Created and switched to workspace %q!\n\n"+
		"You're now on a new, empty workspace. Workspaces isolate their state,\n"+
		"so if you run \"rdmaform plan\" rdmaform will not see any existing state\n"+
		"for this configuration.\n", name)
	return 0
}

func runWorkspaceSelect(args []string, s Meta) int {
	a, code, ok := workspaceArgs("select", args, s)
	if !ok {
		return code
	}
	name := a.Name
	if overridden(s) {
		return 1
	}
	b, exists, ok := workspaceBackendHas(s, name)
	if !ok {
		return 1
	}
	if !exists {
		if a.OrCreate {
			return makeAndSelect(b, name, s)
		}
		s.showError(fmt.Sprintf("Workspace %q doesn't exist.", name), "You can create this workspace with the \"new\" subcommand\nor include the \"-or-create\" flag with the \"select\" subcommand.")
		return 1
	}
	if workspaceOrDefault(".") == name {
		fmt.Fprintf(s.Out, "You're already on workspace %q.\n", name)
		return 0
	}
	if err := recordWorkspace(".", name); err != nil {
		s.showError(fmt.Sprintf("Failed to select workspace %q", name), err.Error())
		return 1
	}
	fmt.Fprintf(s.Out, "Switched to workspace %q.\n", name)
	return 0
}

func runWorkspaceDelete(args []string, s Meta) int {
	a, code, ok := workspaceArgs("delete", args, s)
	if !ok {
		return code
	}
	name, lf := a.Name, lockOf(a.State)
	if name == config.DefaultWorkspace {
		s.showError("Can't delete the default workspace", "The default workspace always exists.")
		return 1
	}
	if workspaceOrDefault(".") == name {
		s.showError(fmt.Sprintf("Workspace %q is your active workspace", name), "You cannot delete the selected workspace. Select another one (\"rdmaform workspace select default\") and try again.")
		return 1
	}
	b, exists, ok := workspaceBackendHas(s, name)
	if !ok {
		return 1
	}
	if !exists {
		s.showError(fmt.Sprintf("Workspace %q doesn't exist.", name), "")
		return 1
	}
	m, err := b.openWorkspace(".", name)
	if err != nil {
		s.showError("Failed to open the state backend", err.Error())
		return 1
	}
	defer m.Close()
	unlock, ok := lf.acquire(m, "OperationTypeWorkspaceDelete", s)
	if !ok {
		return 1
	}
	if !refreshState(m, s) {
		unlock()
		return 1
	}
	st := m.State()
	if st != nil && len(st.Objects) > 0 && !a.Force {
		unlock()
		s.showError("Workspace is not empty", fmt.Sprintf("Workspace %q is currently tracking the following objects:", name))
		for _, a := range st.Addresses() {
			fmt.Fprintf(s.Err, "  - %s\n", a)
		}
		fmt.Fprintf(s.Err, "\nDeleting this workspace would make rdmaform lose track of them while the agent\n"+
			"keeps them. Destroy them first (\"rdmaform workspace select %s\", then\n"+
			"\"rdmaform destroy\"), or delete with -force to leave them to the agent.\n", name)
		return 1
	}
	// The lock lives with the state being deleted: release it first.
	unlock()
	if err := b.deleteWorkspace(".", name); err != nil {
		s.showError(fmt.Sprintf("Failed to delete workspace %q", name), err.Error())
		return 1
	}
	fmt.Fprintf(s.Out, "Deleted workspace %q!\n", name)
	if st != nil && len(st.Objects) > 0 {
		// As Terraform's warning, and more so here: the agent keeps them,
		// their connections and their ports.
		fmt.Fprintf(s.Out, "WARNING: %q was non-empty.\n"+
			"The agent still holds the %d %s it managed (and their ports) under the\n"+
			"workspace's namespace, but rdmaform no longer manages them. \"rdmaform\n"+
			"status\" lists them; \"rdmaform workspace new %s\" and \"rdmaform import\"\n"+
			"of each would manage them again.\n", name, len(st.Objects), plural(len(st.Objects), "object", "objects"), name)
	}
	return 0
}
