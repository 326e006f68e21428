package tui

import (
	"slices"
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

// buildRows orders and filters the objects into table rows: top-level
// objects in sort order, each listener followed by its accepted
// connections (sorted the same way) unless it is folded. While a filter is
// active, matching connections show even under a folded listener, and a
// listener shows when any of its connections match, so that matches keep
// their context.
func buildRows(objects map[string]*Object, m matcher, order func(a, b *Object) int, folded map[string]bool, peers map[string]string) []row {
	var tops []*Object
	children := make(map[string][]*Object)
	for _, o := range objects {
		if o.Parent != "" {
			if _, ok := objects[o.Parent]; ok {
				children[o.Parent] = append(children[o.Parent], o)
				continue
			}
		}
		tops = append(tops, o) // including connections whose listener is gone
	}
	slices.SortFunc(tops, order)

	rows := make([]row, 0, len(objects))
	var shown []*Object
	for _, o := range tops {
		kids := children[o.Address]
		shown = shown[:0]
		for _, k := range kids {
			if m.match(k) {
				shown = append(shown, k)
			}
		}
		if !m.match(o) && len(shown) == 0 {
			continue
		}
		isFolded := folded[o.Address] && m.all()
		rows = append(rows, row{obj: o, children: len(kids), folded: isFolded, peer: peers[o.Address]})
		if isFolded {
			continue
		}
		slices.SortFunc(shown, order)
		for _, k := range shown {
			rows = append(rows, row{obj: k, child: true, peer: peers[k.Address]})
		}
	}
	return rows
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
