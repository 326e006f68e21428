package command

import "fmt"

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
`

func runRefresh(args []string, s Meta) int {
	s = s.withJSON(args)
	for _, a := range args {
		if a == "-help" || a == "--help" || a == "-h" || a == "--h" {
			fmt.Fprint(s.Err, refreshHelp)
			return 0
		}
	}
	return runApplyOrDestroy("refresh", append([]string{"-refresh-only", "-auto-approve"}, args...), s)
}
