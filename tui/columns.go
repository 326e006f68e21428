package tui

import (
	"strconv"
	"time"
)

// column is one column of the table.
type column struct {
	title string
	width int
	// drop orders which columns go first when the terminal is too narrow:
	// the highest goes first; 0 never goes.
	drop  int
	right bool // numbers align right
	cell  func(r row, now time.Time) string
}

const (
	minAddressWidth = 12
	maxAddressWidth = 40
	statusWidth     = 12 // "reconnecting", "disconnected"
)

// allColumns lists the columns left to right. ADDRESS is first and its width
// is set per layout; STATUS is rendered by the table itself, in colour.
// Narrow terminals drop, in order: KIND (the address already says it), QP,
// LOCAL, DEVICE, RECONN, LAST EVENT, RTT, UP and REMOTE.
var allColumns = []column{
	{title: "ADDRESS", cell: func(r row, _ time.Time) string { return r.label() }},
	{title: "KIND", width: 8, drop: 9, cell: func(r row, _ time.Time) string { return shortKind(r.obj.Kind) }},
	{title: "STATUS", width: statusWidth},
	{title: "LOCAL", width: 21, drop: 7, cell: func(r row, _ time.Time) string { return r.obj.LocalAddr }},
	{title: "REMOTE", width: 21, drop: 1, cell: func(r row, _ time.Time) string { return r.obj.RemoteAddr }},
	{title: "QP", width: 10, drop: 8, cell: qpCell},
	{title: "DEVICE", width: 9, drop: 6, cell: func(r row, _ time.Time) string { return device(r.obj) }},
	{title: "UP", width: 6, drop: 2, right: true, cell: uptimeCell},
	{title: "RECONN", width: 6, drop: 5, right: true, cell: reconnectsCell},
	{title: "RTT", width: 7, drop: 3, right: true, cell: rttCell},
	{title: "LAST EVENT", width: 24, drop: 4, cell: lastEventCell},
}

const (
	addressColumn = 0
	statusColumn  = 2
	columnGap     = 1
	rowMarker     = 2 // "▸ " before the selected row
)

// layoutColumns chooses the columns and the address width for a table
// width, dropping columns in their drop order until the rest fit; then the
// address gives up what is still missing, down to its minimum.
func layoutColumns(width, longestAddress int) []column {
	cols := append([]column(nil), allColumns...)
	cols[addressColumn].width = min(max(longestAddress, minAddressWidth), maxAddressWidth)
	for total(cols) > width {
		worst := -1
		for i, c := range cols {
			if c.drop > 0 && (worst < 0 || c.drop > cols[worst].drop) {
				worst = i
			}
		}
		if worst < 0 {
			break
		}
		cols = append(cols[:worst], cols[worst+1:]...)
	}
	if over := total(cols) - width; over > 0 {
		cols[addressColumn].width = max(cols[addressColumn].width-over, minAddressWidth)
	}
	return cols
}

func total(cols []column) int {
	n := rowMarker
	for _, c := range cols {
		n += c.width
	}
	return n + columnGap*(len(cols)-1)
}

func shortKind(k string) string {
	switch k {
	case KindProtectionDomain:
		return "pd"
	case KindConnection:
		return "conn"
	}
	return k
}

func qpCell(r row, _ time.Time) string {
	o := r.obj
	if o.QPNum == 0 {
		return o.QPType
	}
	return strconv.FormatUint(uint64(o.QPNum), 10) + " " + o.QPType
}

func uptimeCell(r row, now time.Time) string {
	if r.obj.ConnectedSince.IsZero() {
		return ""
	}
	return span(now.Sub(r.obj.ConnectedSince))
}

func reconnectsCell(r row, _ time.Time) string {
	if r.obj.Kind == KindProtectionDomain || r.obj.Kind == KindListener {
		return ""
	}
	return strconv.Itoa(r.obj.Reconnects)
}

func rttCell(r row, _ time.Time) string {
	p := r.obj.Probe
	if p == nil || p.Sent == 0 || p.Ended {
		return "" // as status: the round trip was the ended connection's
	}
	if p.Degraded {
		// Its last answered probe is not how it is doing now.
		return "lost " + strconv.FormatUint(p.Lost, 10)
	}
	return rtt(p.Last)
}

func lastEventCell(r row, now time.Time) string {
	name, at := shownEvent(r.obj)
	if name == "" {
		return ""
	}
	if at.IsZero() {
		return name
	}
	return name + " " + span(now.Sub(at)) + " ago"
}
