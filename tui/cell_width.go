package tui

import (
	"strings"
	"time"
)

// The widths of the cells the layout measures over every row, without
// building the cells: a batch that changes every object measures them
// all. Each is the cell's cellWidth; where a part is not plain ASCII,
// which could join with its neighbour, the cell is built and measured.

func labelWidth(r *row) int {
	o := r.obj
	switch {
	case r.child && r.peer != "" && plainASCII(r.peer):
		return childPeerPrefix + len(r.peer)
	case r.child && r.peer == "":
		name := strings.TrimLeft(strings.TrimPrefix(o.Address, o.Parent), "/.:")
		if name != "" && plainASCII(name) {
			return childPrefix + len(name)
		}
	case !r.child && r.children == 0:
		return cellWidth(o.Address)
	}
	return cellWidth(r.label())
}

// The widths of what label puts before a connection's name.
var (
	childPrefix     = cellWidth(" └ ")
	childPeerPrefix = cellWidth(" └ ⇄ ")
)

func qpWidth(r *row) int {
	o := r.obj
	if o.QPNum != 0 && plainASCII(o.QPType) {
		return digits(uint64(o.QPNum)) + 1 + len(o.QPType)
	}
	return cellWidth(qpCell(*r, time.Time{}))
}

func deviceWidth(r *row) int {
	o := r.obj
	if o.Device != "" && o.Port > 0 && plainASCII(o.Device) {
		return len(o.Device) + 1 + digits(uint64(o.Port))
	}
	return cellWidth(device(o))
}

// plainASCII: s is printable ASCII, a cell a byte.
func plainASCII(s string) bool {
	i := 0
	for ; i < len(s) && len(s) >= 8; i += 8 { // as cellWidth, eight bytes at a time
		w := word(s[min(i, len(s)-8):])
		// As in cellWidth, and '~'+1 carries into the top bit.
		if ((w-0x2020202020202020)|(w+0x0101010101010101)|w)&0x8080808080808080 != 0 {
			i = min(i, len(s)-8)
			break
		}
	}
	for ; i < len(s); i++ {
		if s[i] < ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}
