package command

import "github.com/rdmaform/rdmaform/command/arguments"

func init() {
	register(command{Name: "destroy", Synopsis: "Destroy every object rdmaform manages", Run: runDestroy})
}

const destroyHelp = `Usage: rdmaform [global options] destroy [options]

  Destroys every object in the state, in reverse dependency order
  (endpoints, then listeners, protection domains last), after confirmation.
  The same as "rdmaform apply -destroy".

Options:
  -auto-approve        Do not ask for confirmation.
  -json                Print Terraform's machine-readable UI: one JSON message
                       per line (planned changes, each destruction's start and
                       end, the summary, the outputs); needs -auto-approve
                       or a saved plan.
  -input=false         Never ask: without -auto-approve, destroy refuses a
                       plan that destroys anything.
  -var 'name=value'    Set a variable (repeatable).
  -var-file=FILE       Load variable values from a file (repeatable).
  -target=ADDRESS      Destroy only this object and what depends on it.
  -refresh=false       Do not read the live fabric before planning.
  -parallelism=N       At most N objects removed at once, each holding
                       its slot until its disconnect completes. Without it,
                       at most 10 requests to the agent are in flight, and
                       disconnects do not wait for each other to complete.
  -no-color            Do not colour the output.
  -compact-warnings    Show warnings as a list of summaries.
  -lock=false          Do not lock the state.
  -lock-timeout=DUR    Retry a held state lock for this long.
`

func runDestroy(args []string, s Meta) int {
	s = s.withJSON(args)
	a, diags := arguments.ParseDestroy(args)
	return runApplyOrDestroy(a, diags, s)
}
