// Package quietinit keeps bubbletea v1's package init from querying the
// terminal.
//
// bubbletea v1 asks the terminal for its background colour in a package
// init (tea_init.go, charmbracelet/bubbletea#1771, removed only in v2), so
// every rdmaform command, not only the monitor, wrote "ESC]11;? ESC[6n" to
// its terminal and then waited up to termenv's 5 s for an answer that a
// pseudo-terminal driven by expect, script or `ssh -tt` never sends. No
// setting reaches that init: it runs before main. This package's init runs
// before bubbletea's (it imports nothing from the charm libraries, and Go
// initialises packages in import-path order among those ready) and sets
// TERM to "dumb", for which termenv asks nothing; [Restore], called from
// the tui package's init, puts TERM back. The monitor needs no answer: its
// colours are fixed ANSI ones.
package quietinit

import "os"

var term, hadTerm = os.LookupEnv("TERM")

func init() {
	os.Setenv("TERM", "dumb")
}

// Restore gives TERM back the value the process started with.
func Restore() {
	if hadTerm {
		os.Setenv("TERM", term)
	} else {
		os.Unsetenv("TERM")
	}
}
