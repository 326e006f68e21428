package command

import (
	"fmt"
	"os"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/rdmaform/rdmaform/command/arguments"
	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/state"
)

func init() {
	register(command{Name: "init", Synopsis: "Prepare the working directory: check the state backend, migrate state", Run: runInit})
}

const initHelp = `Usage: rdmaform [global options] init [options]

  Prepares the working directory: reads the backend block, checks that the
  state backend is reachable and its state readable, and records the
  backend in .rdmaform/backend.json. rdmaform has no providers or modules
  to install.

Options:
  -migrate-state       Copy the state from the previously used backend to the
                       configured one (the old copy is left in place).
  -force-copy          With -migrate-state, overwrite a different state
                       already in the new backend.
  -reconfigure         Use the configured backend without migrating state.
  -lock=false          Do not lock the state.
  -lock-timeout=DUR    Retry a held state lock for this long.
  -input=false         Accepted for Terraform compatibility; init asks
                       nothing.
  -upgrade             Accepted for Terraform compatibility; there are no
                       providers or modules to upgrade.
  -backend=false       Do not read or check the backend (as in CI before
                       validate, which needs none).
  -backend-config=PATH A file of backend arguments (key = value lines, as in
                       the backend block), merged over the backend block, as
                       Terraform's partial configuration: the block may be
                       empty, backend "etcd" {}. Repeatable; a later value
                       replaces an earlier one.
  -backend-config="KEY=VALUE"
                       One backend argument, such as "username=ops" or
                       'endpoints=["http://10.0.0.1:2379"]'.
  -no-color            Accepted for Terraform compatibility.

  The -backend-config values are recorded so that later commands use them
  too, and a later "rdmaform init" without -backend-config keeps them;
  giving -backend-config again replaces them all. The etcd password, from
  the block or -backend-config, is kept as it is (not encrypted) in
  .rdmaform/backend-secrets.json, mode 0600, as Terraform keeps its
  -backend-config values in .terraform/; it is never in backend.json or in
  any message. To keep it on no disk, set ETCDV3_PASSWORD (and
  ETCDV3_USERNAME) instead: they are read by every command, when the
  username and password are unset.
`

// runInit implements `rdmaform init [-migrate-state] [-force-copy]
// [-reconfigure] [-lock=false] [-lock-timeout=D] [-backend-config=...]`.
// It reads the backend block, with the -backend-config arguments merged
// in (or those recorded by the previous init, when none are given), checks the backend is reachable and its state readable, and
// records the backend in .rdmaform/backend.json. When the backend differs
// from the recorded one (or, on a first init with a non-default backend,
// when a default local rdmaform.rdmastate exists), -migrate-state copies
// the state from the previous backend to the new one, both locked; the
// old copy is left in place.
func runInit(args []string, s Meta) int {
	a, diags := arguments.ParseInit(args)
	if a.Help {
		fmt.Fprint(s.Err, initHelp)
		return 0
	}
	if diags.HasErrors() {
		s.argDiagnostics(diags, initHelp)
		return 1
	}
	lf, migrate, forceCopy, reconfigure, backendArgs := lockOf(a.State), a.MigrateState, a.ForceCopy, a.Reconfigure, a.BackendConfig
	if !a.Backend {
		// As Terraform's: nothing to set up without the backend (CI runs
		// init -backend=false before validate).
		fmt.Fprint(s.Out, "Skipping the backend (-backend=false).\n\nrdmaform has been successfully initialized!\n")
		return 0
	}
	if _, diags := config.LoadBackend("."); len(diags) == 1 && diags[0].Summary == "No configuration files" {
		// As Terraform's: nothing to initialise, and no backend recorded
		// that a configuration written next would contradict.
		fmt.Fprint(s.Out, "rdmaform initialized in an empty directory!\n\nThe directory has no rdmaform configuration files (*.rdma.hcl). You may\nbegin working with rdmaform immediately by creating configuration files.\n")
		return 0
	}
	rec, err := readBackendRecord(".")
	if err != nil && !reconfigure {
		s.showErrorText(err.Error())
		return 1
	}
	loader := config.NewLoader()
	var over hcl.Attributes
	overType := "" // the backend recorded values are for; "" for -backend-config's
	switch {
	case len(backendArgs) > 0:
		var diags hcl.Diagnostics
		over, diags = loader.ParseBackendConfig(backendArgs)
		if diags.HasErrors() {
			s.configDiagnostics(diags, loader, 78)
			return 1
		}
	case rec != nil && !reconfigure:
		// As Terraform's: init run again without -backend-config keeps the
		// values given before (-reconfigure starts afresh).
		over, overType = rec.overrides(), rec.Backend.Type
	}
	b, ok := loadBackend(".", loader, over, overType, s)
	if !ok {
		return 1
	}
	if overType != "" && b.Type != overType {
		// The block of their backend is gone (say, moving the state back
		// to a local file): the recorded values went with it.
		over = nil
	}
	fmt.Fprintf(s.Out, "Initializing the backend...\n")
	var prev *backendConfig
	if rec != nil {
		prev = rec.Backend
	}
	if prev == nil {
		// State kept before any backend was configured is in the default
		// local file.
		def := &backendConfig{Type: "local"}
		if _, err := os.Stat(def.statePath()); err == nil && !def.equal(b) {
			prev = def
		}
	}
	changed := prev != nil && !prev.equal(b)
	// Only the credentials (or the dial timeout, or TLS files) changed:
	// the state is where it was, so there is nothing to choose between
	// moving it and leaving it (a password changed in etcd is set anew).
	sameState := changed && prev.sameState(b)
	if changed && !sameState && !migrate && !reconfigure {
		s.showError("Backend configuration changed", fmt.Sprintf("The state backend changed %s, which may require\nmigrating the existing state.\n\nTo copy the state to the new backend, use \"rdmaform init -migrate-state\".\nTo use the new backend without moving any state, use \"rdmaform init -reconfigure\".", describeChange(prev, b)))
		return 1
	}
	dst, err := b.open(".")
	if err != nil {
		s.showError(fmt.Sprintf("Failed to open the state backend %s", b), err.Error())
		return 1
	}
	defer dst.Close()
	unlockDst, ok := lf.acquire(dst, "OperationTypeInit", s)
	if !ok {
		return 1
	}
	defer unlockDst()
	if !refreshState(dst, s) {
		return 1
	}
	switch {
	case sameState:
		fmt.Fprintf(s.Out, "The state stays where it is (changed: %s); nothing to migrate.\n", strings.Join(prev.changes(b), ", "))
	case changed && migrate:
		if !migrateState(s, &lf, prev, b, dst, forceCopy) {
			return 1
		}
	}
	if err := writeBackendRecord(".", b, over); err != nil {
		s.showError(fmt.Sprintf("Failed to record the backend in %s/%s", backendDir, backendFile), err.Error())
		return 1
	}
	fmt.Fprintf(s.Out, "Using the %s backend.\n\nrdmaform has been successfully initialized!\n", b)
	return 0
}

// migrateState copies the state of every workspace of the previous
// backend into b, as Terraform's migration of all workspaces: the
// default workspace's into dst (locked and refreshed by the caller), each
// other one's into the same workspace of b, which is made if missing.
func migrateState(s Meta, lf *lockFlags, prev, b *backendConfig, dst state.Full, forceCopy bool) bool {
	if !migrateWorkspace(s, lf, prev, b, config.DefaultWorkspace, dst, forceCopy) {
		return false
	}
	if prev.Type == "local" && b.Type == "local" {
		return true // both keep the other workspaces in the same directory
	}
	names, err := prev.workspaces(".")
	if err != nil {
		s.showError(fmt.Sprintf("Failed to list the workspaces of %s", prev), err.Error())
		return false
	}
	for _, name := range names[1:] {
		if err := b.createWorkspace(".", name); err != nil {
			s.showError(fmt.Sprintf("Failed to make workspace %q in %s", name, b), err.Error())
			return false
		}
		ok := func() bool {
			d, err := b.openWorkspace(".", name)
			if err != nil {
				s.showError(fmt.Sprintf("Failed to open workspace %q of %s", name, b), err.Error())
				return false
			}
			defer d.Close()
			unlock, ok := lf.acquire(d, "OperationTypeInit", s)
			if !ok {
				return false
			}
			defer unlock()
			return refreshState(d, s) && migrateWorkspace(s, lf, prev, b, name, d, forceCopy)
		}()
		if !ok {
			return false
		}
	}
	return true
}

// migrateWorkspace copies workspace name's state of prev into dst (b's,
// locked and refreshed).
func migrateWorkspace(s Meta, lf *lockFlags, prev, b *backendConfig, name string, dst state.Full, forceCopy bool) bool {
	where := ""
	if name != config.DefaultWorkspace {
		where = fmt.Sprintf(" of workspace %q", name)
	}
	src, err := prev.openWorkspace(".", name)
	if err != nil {
		s.showError(fmt.Sprintf("Failed to open the previous backend %s%s", prev, where), err.Error())
		return false
	}
	defer src.Close()
	unlock, ok := lf.acquire(src, "OperationTypeInit", s)
	if !ok {
		return false
	}
	defer unlock()
	if !refreshState(src, s) {
		return false
	}
	from := src.State()
	if from == nil {
		fmt.Fprintf(s.Out, "The previous backend %s has no state%s; nothing to migrate.\n", prev, where)
		return true
	}
	if to := dst.State(); to != nil && len(to.Objects)+len(to.Outputs) > 0 && !state.SameContent(from, to) && !forceCopy {
		s.showError(fmt.Sprintf("The new backend already has a state%s", where), fmt.Sprintf("%s holds a state (lineage %s, serial %d) that differs from the\nstate in %s (lineage %s, serial %d). rdmaform will not overwrite it.\nUse -force-copy to replace it with the previous backend's state, or\n-reconfigure to keep it and leave the previous state where it is.", b, to.Lineage, to.Serial, prev, from.Lineage, from.Serial))
		return false
	}
	err = dst.WriteState(from)
	if err == nil {
		err = dst.PersistState()
	}
	if err != nil {
		s.showError(fmt.Sprintf("Failed to write the migrated state%s to %s", where, b), err.Error())
		return false
	}
	fmt.Fprintf(s.Out, "Successfully migrated the state%s (lineage %s, serial %d, %d objects) from %s\nto %s. The previous copy was left in place; remove it once you have\nchecked the new backend.\n", where, from.Lineage, dst.State().Serial, len(from.Objects), prev, b)
	return true
}
