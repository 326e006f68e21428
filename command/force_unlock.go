package command

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/rdmaform/rdmaform/command/arguments"
)

func init() {
	register(command{Name: "force-unlock", Synopsis: "Release a stuck lock on the current state", Run: runForceUnlock})
}

const forceUnlockHelp = `Usage: rdmaform [global options] force-unlock [options] LOCK_ID

  Removes the lock on the state of the configuration here (its backend and
  workspace), as Terraform's force-unlock does. LOCK_ID is the lock's ID,
  which a command refused by the lock prints with who holds it. It fails
  without asking when no lock is held under LOCK_ID (or a local lock's
  holder still runs); otherwise it asks first, showing the holder.
  Nothing changes on the fabric.

  A lock normally goes with its holder: a local lock when its process
  exits, an etcd lock when its lease expires (the holder renews it while
  it runs). A local lock whose process still runs is not removed: stop
  that process instead. An etcd lock is removed even then: make sure its
  holder is stuck or gone, as two commands changing one state at once can
  lose each other's changes.

Options:
  -force       Do not ask for confirmation.
  -no-color    Accepted for Terraform compatibility: force-unlock prints no
               colour.
`

// runForceUnlock implements `rdmaform force-unlock [-force] LOCK_ID`. It
// asks for confirmation on standard input unless -force.
func runForceUnlock(args []string, s Meta) int {
	a, diags := arguments.ParseForceUnlock(args)
	if a.Help {
		fmt.Fprint(s.Err, forceUnlockHelp)
		return 0
	}
	if diags.HasErrors() {
		s.argDiagnostics(diags, forceUnlockHelp)
		return 1
	}
	id := a.LockID
	if !a.Force && !arguments.InputDefault() {
		s.showError("No confirmation with RDMAFORM_INPUT=false", "force-unlock asks before it removes a lock; add -force to remove it without asking.")
		return 1
	}
	m, ok := openStateManager(".", s)
	if !ok {
		return 1
	}
	defer m.Close()
	// As Terraform's: no question about a lock that is not held under id.
	holder, err := m.ForceUnlockable(id)
	if err != nil {
		s.showError("Failed to unlock state", err.Error())
		return 1
	}
	if !a.Force {
		fmt.Fprintf(s.Out, "Do you really want to force-unlock?\n  rdmaform will remove the lock on the state of %s.\n", m.Describe())
		fmt.Fprintf(s.Out, "  It is held by:\n%s", indent(holder.String(), "  "))
		fmt.Fprint(s.Out, "  This will allow local rdmaform commands to modify this state, even though it\n  may still be in use. Only 'yes' will be accepted to confirm.\n\n  Enter a value: ")
		answer, _ := bufio.NewReader(s.In).ReadString('\n')
		if strings.TrimSpace(answer) != "yes" {
			fmt.Fprintln(s.Out, "\nforce-unlock cancelled.")
			return 1
		}
		fmt.Fprintln(s.Out)
	}
	if err := m.ForceUnlock(id); err != nil {
		s.showError("Failed to unlock state", err.Error())
		return 1
	}
	fmt.Fprintln(s.Out, "rdmaform state has been successfully unlocked!\n\nThe state has been unlocked, and rdmaform commands should now be able to\nobtain a new lock on the state.")
	return 0
}

func indent(s, prefix string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "")
}
