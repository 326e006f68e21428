package command

import "github.com/rdmaform/rdmaform/command/arguments"

func init() {
	register(command{Name: "refresh", Synopsis: "Record in the state what changed outside rdmaform (apply -refresh-only)", Run: runRefresh})
}

const refreshHelp = `Usage: rdmaform [global options] refresh [options]

  Reads the live fabric from the agent and records in the state what
  changed outside rdmaform (objects the agent no longer holds), without
  asking and without changing any object.

  As in Terraform, this is "rdmaform apply -refresh-only -auto-approve";
  prefer "rdmaform apply -refresh-only", which shows what it would record
  and asks first. Options are apply's.

  Unlike Terraform's, it asks once: an agent holds its objects in memory
  only, so one that restarted holds none of them. A refresh that would
  drop objects made before the agent started says so and asks for "yes"
  on a terminal ("rdmaform apply" makes them again); without a terminal
  it refuses, unless given -auto-approve.
`

func runRefresh(args []string, s Meta) int {
	s = s.withJSON(args)
	a, diags := arguments.ParseRefresh(args)
	return runApplyOrDestroy(a, diags, s)
}
