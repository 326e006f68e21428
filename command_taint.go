package main

import (
	"fmt"

	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/rdmaform/rdmaform/state"
)

func init() {
	register(command{Name: "taint", Synopsis: "Mark an object to be replaced by the next apply", Run: runTaint})
	register(command{Name: "untaint", Synopsis: "Remove the tainted mark from an object", Run: runUntaint})
}

func runTaint(args []string, s streams) int   { return runSetTainted(args, s, true) }
func runUntaint(args []string, s streams) int { return runSetTainted(args, s, false) }

// runSetTainted marks one object of the state tainted or not, as
// Terraform's taint and untaint do: the next plan replaces a tainted
// object ("is tainted, so must be replaced"). As in Terraform, -replace on
// plan or apply is the better way for a single apply.
func runSetTainted(args []string, s streams, tainted bool) int {
	name, operation := "untaint", "OperationTypeUntaint"
	if tainted {
		name, operation = "taint", "OperationTypeTaint"
	}
	f := newFlagSetArgs(name, "ADDRESS", s.Err)
	acceptNoColor(f)
	var lf lockFlags
	lf.register(f)
	allowMissing := f.Bool("allow-missing", false, "Succeed (and change nothing) when the object is not in the state.")
	if code, ok := parseFlags(f, args); !ok {
		return code
	}
	if f.NArg() != 1 {
		fmt.Fprintf(s.Err, "Error: %s takes exactly one address, such as endpoint.client[0]\n", name)
		return 1
	}
	addr, err := addrs.ParseInstance(f.Arg(0))
	if err != nil {
		fmt.Fprintf(s.Err, "Error: Invalid address\n\n%v\n", err)
		return 1
	}
	return modifyState(s, &lf, operation, func(st *state.State, _ bool) (bool, bool) {
		o := st.Object(addr)
		switch {
		case o == nil && *allowMissing:
			fmt.Fprintf(s.Out, "No such resource instance: %s is not in the state; nothing to do (-allow-missing).\n", addr)
			return false, true
		case o == nil:
			fmt.Fprintf(s.Err, "Error: No such resource instance\n\n%s is not in the state.%s (\"rdmaform state list\" lists what it holds.)\n", addr, blockNote(st, addr))
			return false, false
		case !tainted && !o.Tainted:
			fmt.Fprintf(s.Err, "Error: Resource instance not tainted\n\n%s is not tainted.\n", addr)
			return false, false
		}
		c := *o
		c.Tainted = tainted
		st.SetObject(&c)
		if tainted {
			fmt.Fprintf(s.Out, "Resource instance %s has been marked as tainted.\n", addr)
		} else {
			fmt.Fprintf(s.Out, "Resource instance %s has been successfully untainted.\n", addr)
		}
		return true, true
	})
}
