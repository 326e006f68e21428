package tui

import (
	"strconv"
	"strings"
)

// row is one line of the table.
type row struct {
	obj      *Object
	child    bool // an accepted connection shown under its listener
	children int  // for a listener: how many connections it accepted
	folded   bool // for a listener: its connections are hidden
	// peer is the object at the other end of the row's connection, where
	// the monitor sees it ("" otherwise).
	peer string
}

// label is the address as the table shows it: a connection under its
// listener is named relative to it, or by the endpoint at its other end
// when the monitor sees it (the agent numbers connections as it accepts
// them, so a client's connection gets a new number each time it
// reconnects, while its endpoint keeps its address); a listener carries
// its count.
func (r row) label() string {
	o := r.obj
	switch {
	case r.child && r.peer != "":
		return " └ ⇄ " + r.peer
	case r.child:
		name := strings.TrimLeft(strings.TrimPrefix(o.Address, o.Parent), "/.:")
		if name == "" {
			name = o.Address
		}
		return " └ " + name
	case r.children > 0 && r.folded:
		return o.Address + " [+" + strconv.Itoa(r.children) + "]"
	case r.children > 0:
		return o.Address + " (" + strconv.Itoa(r.children) + ")"
	}
	return o.Address
}
