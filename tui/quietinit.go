package tui

import "github.com/rdmaform/rdmaform/tui/internal/quietinit"

// bubbletea's init has run by now (this package imports it): TERM is the
// user's again for everything else, the monitor's renderer included.
func init() { quietinit.Restore() }
