package command

import (
	"bytes"
	"fmt"

	"github.com/rdmaform/rdmaform/command/arguments"
	"github.com/rdmaform/rdmaform/state"
)

func init() {
	register(command{Name: "taint", Synopsis: "Mark an object to be replaced by the next apply", Run: runTaint})
	register(command{Name: "untaint", Synopsis: "Remove the tainted mark from an object", Run: runUntaint})
}

const taintHelp = `Usage: rdmaform [global options] taint [options] ADDRESS

  Marks an object in the state as tainted, as Terraform's taint does: the
  next plan replaces it ("is tainted, so must be replaced"), for example a
  connection you no longer trust. Nothing changes on the fabric until that
  apply; "rdmaform untaint ADDRESS" takes the mark away. To replace an
  object in one apply, without a mark in the state, use
  "rdmaform apply -replace=ADDRESS".

  ADDRESS names one instance, such as endpoint.client[0] or
  'endpoint.peer["a"]' (quoted for the shell).

Options:
  -allow-missing       Succeed, and change nothing, when the state does not
                       hold ADDRESS.
  -lock=false          Do not lock the state.
  -lock-timeout=DUR    Retry a held state lock for this long.
  -no-color            Accepted for Terraform compatibility: taint prints
                       no colour.
`

const untaintHelp = `Usage: rdmaform [global options] untaint [options] ADDRESS

  Takes away the tainted mark that "rdmaform taint" put on an object in the
  state, as Terraform's untaint does: the next plan no longer replaces it
  for that reason. Nothing changes on the fabric.

  ADDRESS names one instance, such as endpoint.client[0] or
  'endpoint.peer["a"]' (quoted for the shell).

Options:
  -allow-missing       Succeed, and change nothing, when the state does not
                       hold ADDRESS.
  -lock=false          Do not lock the state.
  -lock-timeout=DUR    Retry a held state lock for this long.
  -no-color            Accepted for Terraform compatibility: untaint prints
                       no colour.
`

func runTaint(args []string, s Meta) int   { return runSetTainted(args, s, true) }
func runUntaint(args []string, s Meta) int { return runSetTainted(args, s, false) }

// runSetTainted marks one object of the state tainted or not, as
// Terraform's taint and untaint do: the next plan replaces a tainted
// object ("is tainted, so must be replaced"). As in Terraform, -replace on
// plan or apply is the better way for a single apply.
func runSetTainted(args []string, s Meta, tainted bool) int {
	parse, operation, help := arguments.ParseUntaint, "OperationTypeUntaint", untaintHelp
	if tainted {
		parse, operation, help = arguments.ParseTaint, "OperationTypeTaint", taintHelp
	}
	a, diags := parse(args)
	if a.Help {
		fmt.Fprint(s.Err, help)
		return 0
	}
	if diags.HasErrors() {
		s.argDiagnostics(diags, help)
		return 1
	}
	addr, lf := a.Addr, lockOf(a.State)
	// What it did is said once the state is saved: a failed save leaves
	// the object as it was.
	var said bytes.Buffer
	unchanged := "Nothing was untainted: the state is as it was."
	if tainted {
		unchanged = "Nothing was tainted: the state is as it was."
	}
	return modifyStateSaying(s, &lf, operation, &said, unchanged, func(st *state.State, _ bool) (bool, bool) {
		o := st.Object(addr)
		switch {
		case o == nil && a.AllowMissing:
			fmt.Fprintf(s.Out, "No such resource instance: %s is not in the state; nothing to do (-allow-missing).\n", addr)
			return false, true
		case o == nil:
			s.showError("No such resource instance", fmt.Sprintf("%s is not in the state.%s (\"rdmaform state list\" lists what it holds.)", addr, blockNote(st, addr)))
			return false, false
		case !tainted && !o.Tainted:
			s.showError("Resource instance not tainted", fmt.Sprintf("%s is not tainted.", addr))
			return false, false
		}
		c := *o
		c.Tainted = tainted
		st.SetObject(&c)
		if tainted {
			fmt.Fprintf(&said, "Resource instance %s has been marked as tainted.\n", addr)
		} else {
			fmt.Fprintf(&said, "Resource instance %s has been successfully untainted.\n", addr)
		}
		return true, true
	})
}
