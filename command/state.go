package command

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/rdmaform/rdmaform/command/arguments"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/state"
)

func init() {
	register(command{Name: "state", Synopsis: "Advanced state management", Run: runState, Subcommands: true})
}

const stateUsage = `Usage: rdmaform [global options] state <subcommand> [options] [args]

  Advanced state management. Subcommands:
    list [-id=ID] [ADDRESS...]
                            List objects in the state (-id: those the agent
                            knows as ID)
    show ADDRESS            Show one object in the state
    rm [options] ADDRESS... Remove objects from the state (not from the fabric)
    mv [options] SRC DST    Move an object to a new address
    pull                    Print the raw state to stdout
    push [options] FILE     Replace the state with FILE ("-" for stdin)
`

// The subcommands' helps, as "rdmaform state SUBCOMMAND -help" prints them.
const (
	stateListHelp = `Usage: rdmaform [global options] state list [options] [ADDRESS ...]

  Lists the objects in the state, one address a line, as Terraform's state
  list does. Given addresses, it lists only those objects; an address
  without an instance key (endpoint.client) stands for every instance of
  its block.

Options:
  -id=ID       Only the objects whose id (the agent's name for them, as
               "rdmaform status" shows it) is ID.
  -no-color    Accepted for Terraform compatibility: state list prints no
               colour.
`
	stateShowHelp = `Usage: rdmaform [global options] state show [options] ADDRESS

  Shows one object as the state records it, as Terraform's state show
  does: its attributes, and the facts apply learned of it (the agent's
  handle, the device, QP number, local port, status). ADDRESS names one
  instance; "rdmaform state list" lists them. "rdmaform status" shows the
  object live.

Options:
  -no-color    Accepted for Terraform compatibility: state show prints no
               colour.
`
	stateRmHelp = `Usage: rdmaform [global options] state rm [options] ADDRESS ...

  Removes objects from the state without destroying them, as Terraform's
  state rm does: rdmaform forgets them, and the agent keeps holding them
  (an endpoint stays connected). An address without an instance key
  (endpoint.client) removes every instance of its block; an address that
  matches nothing is an error, and then nothing is removed.

  While the configuration still declares a forgotten object, the next apply
  tries to create it, which the agent refuses as long as it holds the
  object: remove its block too, or adopt the object again with
  "rdmaform import".
  A removed { from = ADDRESS  lifecycle { destroy = false } } block forgets
  objects through a plan instead.

Options:
  -dry-run             Only print what would be removed.
  -lock=false          Do not lock the state.
  -lock-timeout=DUR    Retry a held state lock for this long.
  -no-color            Accepted for Terraform compatibility: state rm
                       prints no colour.
`
	stateMvHelp = `Usage: rdmaform [global options] state mv [options] SOURCE DESTINATION

  Moves an object in the state to another address, as Terraform's state mv
  does, for example after its block was renamed: endpoint.client[0] to
  'endpoint.clients["a"]'. Addresses without instance keys move a whole
  block, every instance keeping its key (endpoint.client to endpoint.peer).
  Nothing changes on the fabric: the agent keeps holding the object under
  its first name. A moved { from = ...  to = ... } block moves objects
  through a plan instead.

Options:
  -dry-run             Only print what would be moved.
  -lock=false          Do not lock the state.
  -lock-timeout=DUR    Retry a held state lock for this long.
  -no-color            Accepted for Terraform compatibility: state mv
                       prints no colour.
`
	statePullHelp = `Usage: rdmaform [global options] state pull [options]

  Prints the state as JSON on standard output, as Terraform's state pull
  does, read from the configured backend (the local file or etcd); nothing
  when there is no state. "rdmaform state push" writes such a file back.

Options:
  -no-color    Accepted for Terraform compatibility: state pull prints no
               colour.
`
	statePushHelp = `Usage: rdmaform [global options] state push [options] PATH

  Replaces the state in the configured backend (the local file or etcd)
  with the state file at PATH, or standard input when PATH is "-", as
  Terraform's state push does. Unless -force, it refuses a state of
  another lineage, an older serial, or the same serial with other content.
  Nothing changes on the fabric.

Options:
  -force               Write the state even when the lineages differ or
                       its serial is older.
  -lock=false          Do not lock the state.
  -lock-timeout=DUR    Retry a held state lock for this long.
  -no-color            Accepted for Terraform compatibility: state push
                       prints no colour.
`
)

// stateArgs parses the command line of state sub; when it fails, code is
// the exit status.
func stateArgs(sub, help string, args []string, s Meta) (a *arguments.StateCommand, code int, ok bool) {
	a, diags := arguments.ParseState(sub, args)
	if a.Help {
		fmt.Fprint(s.Err, help)
		return nil, 0, false
	}
	if diags.HasErrors() {
		s.argDiagnostics(diags, help)
		return nil, 1, false
	}
	return a, 0, true
}

func runState(args []string, s Meta) int {
	if len(args) == 0 {
		fmt.Fprint(s.Err, stateUsage)
		return 1
	}
	switch args[0] {
	case "-help", "--help", "-h", "--h", "help":
		fmt.Fprint(s.Out, stateUsage)
		return 0
	}
	sub := map[string]func([]string, Meta) int{
		"list": runStateList, "show": runStateShow, "rm": runStateRm,
		"mv": runStateMv, "pull": runStatePull, "push": runStatePush,
	}[args[0]]
	if sub == nil {
		s.showError(fmt.Sprintf("rdmaform state has no subcommand %q.", args[0]), "")
		fmt.Fprint(s.Err, "\n"+stateUsage)
		return 1
	}
	return sub(args[1:], s)
}

// loadState opens the configured backend and reads the state, for the
// read-only subcommands. It returns a nil state when there is none.
func loadState(s Meta) (*state.State, bool) {
	m, ok := openStateManager(".", s)
	if !ok {
		return nil, false
	}
	defer m.Close()
	if !refreshState(m, s) {
		return nil, false
	}
	return m.State(), true
}

// modifyState locks the state (per -lock, -lock-timeout), reads it, lets
// change modify it, and persists the result if change returns true.
func modifyState(s Meta, lf *lockFlags, operation string, change func(st *state.State, existed bool) (write bool, ok bool)) int {
	return modifyStateSaying(s, lf, operation, nil, "", change)
}

// modifyStateSaying is modifyState for a change that says what it did in
// said: printed once the state is saved (or at once when change writes
// nothing, as a dry run), never when the save failed, which left the state
// as it was; unchanged then says so in the command's words.
func modifyStateSaying(s Meta, lf *lockFlags, operation string, said *bytes.Buffer, unchanged string, change func(st *state.State, existed bool) (write bool, ok bool)) int {
	m, ok := openStateManager(".", s)
	if !ok {
		return 1
	}
	defer m.Close()
	unlock, ok := lf.acquire(m, operation, s)
	if !ok {
		return 1
	}
	defer unlock()
	if !refreshState(m, s) {
		return 1
	}
	st := m.State()
	existed := st != nil
	if !existed {
		st = state.New()
	}
	write, ok := change(st, existed)
	if !ok {
		return 1
	}
	if write {
		err := m.WriteState(st)
		if err == nil {
			err = m.PersistState()
		}
		if err != nil {
			s.showError("Failed to write state", err.Error())
			switch {
			case errors.Is(err, context.DeadlineExceeded):
				fmt.Fprint(s.Err, "\nWhether the state was saved is not known (etcd did not answer): \"rdmaform state list\" shows what it holds.\n")
			case unchanged != "":
				fmt.Fprintf(s.Err, "\n%s\n", unchanged)
			}
			return 1
		}
	}
	if said != nil {
		s.Out.Write(said.Bytes())
	}
	return 0
}

func matches(pattern, a addrs.Instance) bool {
	if pattern.Key == nil {
		return pattern.Resource == a.Resource
	}
	return pattern.String() == a.String()
}

// matching returns the objects' addresses matching any pattern (all when
// there are no patterns), in state order.
func matching(st *state.State, patterns []addrs.Instance) []addrs.Instance {
	if st == nil {
		return nil
	}
	var out []addrs.Instance
	for _, a := range st.Addresses() {
		if len(patterns) == 0 {
			out = append(out, a)
			continue
		}
		for _, p := range patterns {
			if matches(p, a) {
				out = append(out, a)
				break
			}
		}
	}
	return out
}

// noMatch is the detail of an address that matches nothing in the state.
const noMatch = "No matching objects found for %s. To view the available instances, use\n\"rdmaform state list\". Please modify the address to reference a specific\ninstance."

func runStateList(args []string, s Meta) int {
	a, code, ok := stateArgs("list", stateListHelp, args, s)
	if !ok {
		return code
	}
	patterns, id := a.Addrs, a.ID
	st, ok := loadState(s)
	if !ok {
		return 1
	}
	if st == nil {
		fmt.Fprint(s.Err, "No state file was found!\n\nState management commands require a state. Run this command in a directory\nwhere rdmaform has been applied, or configure the backend that holds it.\n")
		return 1
	}
	// An address that names nothing is an error, as Terraform's (scripts
	// use state list ADDRESS to ask whether an object exists).
	for _, p := range patterns {
		if len(matching(st, []addrs.Instance{p})) > 0 {
			continue
		}
		if p.Key == nil {
			s.showError("Unknown resource", fmt.Sprintf("The current state contains no resource %s. If you've just added this\nblock to the configuration, you must run \"rdmaform apply\" first to create\nits entry in the state.", p))
		} else {
			s.showError("Unknown resource instance", fmt.Sprintf("The current state contains no resource instance %s. If you've just added\nits block to the configuration or have changed the count or for_each\narguments, you must run \"rdmaform apply\" first to update the block's\nentry in the state.", p))
		}
		return 1
	}
	// Terraform's order: by block type and name, then instance key.
	list := matching(st, patterns)
	sort.SliceStable(list, func(i, j int) bool {
		if list[i].Kind != list[j].Kind {
			return list[i].Kind < list[j].Kind
		}
		return list[i].Less(list[j])
	})
	for _, a := range list {
		if id != "" && agentID(st.Object(a)) != id {
			continue
		}
		fmt.Fprintln(s.Out, a)
	}
	return 0
}

// agentID is an object's id attribute: the agent's name for it.
func agentID(o *state.Object) string {
	if o == nil {
		return ""
	}
	if o.Facts.AgentHandle != "" {
		return o.Facts.AgentHandle
	}
	return o.Addr.String()
}

func runStateShow(args []string, s Meta) int {
	a, code, ok := stateArgs("show", stateShowHelp, args, s)
	if !ok {
		return code
	}
	as := a.Addrs
	st, ok := loadState(s)
	if !ok {
		return 1
	}
	var o *state.Object
	if st != nil {
		o = st.Object(as[0])
	}
	if o == nil {
		s.showError("No instance found for the given address!", fmt.Sprintf("This command requires that the address references one specific instance.\n%s is not in the state.%s To view the available instances, use\n\"rdmaform state list\".", as[0], blockNote(st, as[0])))
		return 1
	}
	writeObjectHuman(s.Out, o)
	return 0
}

func runStateRm(args []string, s Meta) int {
	a, code, ok := stateArgs("rm", stateRmHelp, args, s)
	if !ok {
		return code
	}
	lf, dry, patterns := lockOf(a.State), a.DryRun, a.Addrs
	var said bytes.Buffer
	return modifyStateSaying(s, &lf, "OperationTypeStateRm", &said, "Nothing was removed: the state is as it was.", func(st *state.State, _ bool) (bool, bool) {
		for _, p := range patterns {
			if len(matching(st, []addrs.Instance{p})) == 0 {
				s.showError("Invalid target address", fmt.Sprintf(noMatch, p))
				return false, false
			}
		}
		found := matching(st, patterns)
		verb := "Removed"
		if dry {
			verb = "Would remove"
		}
		for _, a := range found {
			fmt.Fprintf(&said, "%s %s\n", verb, a)
			st.RemoveObject(a)
		}
		if !dry {
			fmt.Fprintf(&said, "Successfully removed %d resource instance(s).\n", len(found))
		}
		return !dry, true
	})
}

func runStateMv(args []string, s Meta) int {
	a, code, ok := stateArgs("mv", stateMvHelp, args, s)
	if !ok {
		return code
	}
	lf, dry, as := lockOf(a.State), a.DryRun, a.Addrs
	src, dst := as[0], as[1]
	var said bytes.Buffer
	return modifyStateSaying(s, &lf, "OperationTypeStateMv", &said, "Nothing was moved: the state is as it was.", func(st *state.State, _ bool) (bool, bool) {
		// A whole resource (no index on either side) moves with its
		// instances; otherwise exactly one instance moves.
		var moves [][2]addrs.Instance
		if src.Key == nil && dst.Key == nil && st.Object(src) == nil {
			for _, a := range matching(st, []addrs.Instance{src}) {
				moves = append(moves, [2]addrs.Instance{a, dst.Resource.Instance(a.Key)})
			}
		} else if st.Object(src) != nil {
			moves = append(moves, [2]addrs.Instance{src, dst})
		}
		if len(moves) == 0 {
			if src.Key == nil && dst.Key != nil && len(matching(st, []addrs.Instance{src})) > 0 {
				s.showError("Invalid state move request", fmt.Sprintf("%s names a block with instances (%s), which cannot move to the one instance %s. Move the block to %s, or one instance at a time.", src, strings.Join(blockInstances(st, src), ", "), dst, dst.Resource))
				return false, false
			}
			s.showError("Invalid source address", fmt.Sprintf("Cannot move %s: it matches nothing in the current state. To view the\navailable instances, use \"rdmaform state list\".", src))
			return false, false
		}
		moved := make(map[addrs.Instance]addrs.Instance, len(moves))
		for _, mv := range moves {
			moved[mv[0]] = mv[1]
		}
		for _, mv := range moves {
			if err := st.MoveObject(mv[0], mv[1]); err != nil {
				s.showError("Invalid state move request", err.Error())
				return false, false
			}
			verb := "Move"
			if dry {
				verb = "Would move"
			}
			fmt.Fprintf(&said, "%s %q to %q\n", verb, mv[0].String(), mv[1].String())
		}
		// Destroy orders deletes by the dependencies: they follow the move.
		planner.RedirectDependencies(st, moved)
		if !dry {
			fmt.Fprintf(&said, "Successfully moved %d object(s).\n", len(moves))
		}
		return !dry, true
	})
}

func runStatePull(args []string, s Meta) int {
	if _, code, ok := stateArgs("pull", statePullHelp, args, s); !ok {
		return code
	}
	st, ok := loadState(s)
	if !ok {
		return 1
	}
	if st == nil {
		return 0
	}
	b, err := state.Encode(st)
	if err != nil {
		s.showErrorText(err.Error())
		return 1
	}
	s.Out.Write(b)
	return 0
}

func runStatePush(args []string, s Meta) int {
	a, code, ok := stateArgs("push", statePushHelp, args, s)
	if !ok {
		return code
	}
	lf, force, name := lockOf(a.State), a.Force, a.Path
	var data []byte
	var err error
	if name == "-" {
		data, err = io.ReadAll(s.In)
		name = "standard input"
	} else {
		data, err = os.ReadFile(name)
	}
	if err != nil {
		s.showError(fmt.Sprintf("Failed to read %s", name), err.Error())
		return 1
	}
	pushed, err := state.Decode(data, name)
	if err != nil {
		s.showError(fmt.Sprintf("Failed to read %s", name), err.Error())
		return 1
	}
	// What a plan would refuse to read is refused now, -force or not, so
	// that the state in place stays one rdmaform can plan with.
	if diags := planner.DecodePriors(pushed).Diagnostics(); diags.HasErrors() {
		for _, d := range diags {
			s.showError(fmt.Sprintf("%s in %s", d.Summary, name), d.Detail)
			fmt.Fprint(s.Err, "\n")
		}
		fmt.Fprintln(s.Err, "The current state is left as it was.")
		return 1
	}
	return modifyState(s, &lf, "OperationTypeStatePush", func(cur *state.State, existed bool) (bool, bool) {
		if existed && !force {
			switch {
			case cur.Lineage != pushed.Lineage:
				s.showError("Failed to write state", fmt.Sprintf("Cannot import a state from %s with a different lineage: it has lineage %s,\nthe current state has lineage %s. A different lineage means a different\nstate; use -force to replace the current state anyway.", name, pushed.Lineage, cur.Lineage))
				return false, false
			case pushed.Serial < cur.Serial:
				s.showError("Failed to write state", fmt.Sprintf("Cannot import a state from %s with serial %d over the newer current state\nwith serial %d; use -force to replace it anyway.", name, pushed.Serial, cur.Serial))
				return false, false
			case pushed.Serial == cur.Serial && !state.SameContent(pushed, cur):
				s.showError("Failed to write state", fmt.Sprintf("Cannot import a state from %s with serial %d over a different current state\nwith the same serial; use -force to replace it anyway.", name, pushed.Serial))
				return false, false
			}
		}
		*cur = *pushed.DeepCopy()
		return true, true
	})
}

// blockNote explains that addr, without a key, names a block whose
// instances the state holds: " It names a block with instances
// endpoint.c[0], endpoint.c[1]: give one." ("" otherwise).
func blockNote(st *state.State, addr addrs.Instance) string {
	insts := blockInstances(st, addr)
	if len(insts) == 0 {
		return ""
	}
	return fmt.Sprintf(" It names a block with instances %s: give one.", strings.Join(insts, ", "))
}

// blockInstances are the instances the state holds of the block addr
// names (none when addr is an instance).
func blockInstances(st *state.State, addr addrs.Instance) []string {
	if st == nil || addr.Key != nil {
		return nil
	}
	var insts []string
	for _, a := range st.Addresses() {
		if a.Resource == addr.Resource && a.Key != nil {
			insts = append(insts, a.String())
		}
	}
	return insts
}
