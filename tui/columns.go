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
	// content is the widest the column's cell can be for a row at any
	// time (so that the layout does not change as clocks tick); nil for
	// columns whose width always fits. Columns with a content width take
	// what width a wide terminal has to spare, up to it.
	content func(r row) int
	want    int // per layout: the content's width over the rows
}

const (
	minAddressWidth = 12
	maxAddressWidth = 40 // unless the terminal has width to spare
	statusWidth     = 12 // "reconnecting", "disconnected"
)

// allColumns lists the columns left to right. ADDRESS is first and its width
// is set per layout; STATUS is rendered by the table itself, in colour.
// Narrow terminals drop, in order: KIND (the address already says it), QP,
// LOCAL, LOST (a lossy connection also shows as degraded, its RTT as
// "lost N"), DEVICE, RECONN, LAST EVENT, RTT, UP and REMOTE. Wide ones
// give what they have to spare to the cells they would cut (ADDRESS, LAST
// EVENT, LOCAL, REMOTE, DEVICE, QP, LOST).
var allColumns = []column{
	{title: "ADDRESS", cell: func(r row, _ time.Time) string { return r.label() },
		content: func(r row) int { return cellWidth(r.label()) }},
	{title: "KIND", width: 8, drop: 10, cell: func(r row, _ time.Time) string { return shortKind(r.obj.Kind) }},
	{title: "STATUS", width: statusWidth},
	{title: "LOCAL", width: 21, drop: 8, cell: func(r row, _ time.Time) string { return r.obj.LocalAddr },
		content: func(r row) int { return cellWidth(r.obj.LocalAddr) }},
	{title: "REMOTE", width: 21, drop: 1, cell: func(r row, _ time.Time) string { return r.obj.RemoteAddr },
		content: func(r row) int { return cellWidth(r.obj.RemoteAddr) }},
	{title: "QP", width: 10, drop: 9, cell: qpCell, content: func(r row) int { return cellWidth(qpCell(r, time.Time{})) }},
	{title: "DEVICE", width: 9, drop: 6, cell: func(r row, _ time.Time) string { return device(r.obj) },
		content: func(r row) int { return cellWidth(device(r.obj)) }},
	{title: "UP", width: 6, drop: 2, right: true, cell: uptimeCell},
	{title: "RECONN", width: 6, drop: 5, right: true, cell: reconnectsCell},
	{title: "RTT", width: 7, drop: 3, right: true, cell: rttCell},
	{title: "LOST", width: 9, drop: 7, right: true, cell: lostCell, content: lostWidth},
	{title: "LAST EVENT", width: 24, drop: 4, cell: lastEventCell, content: lastEventWidth},
}

const (
	addressColumn = 0
	statusColumn  = 2
	columnGap     = 1
	rowMarker     = 2 // "▸ " before the selected row
)

// contentWidths is, for each of allColumns, the widest its cells can be
// over the rows; 0 for the columns of fixed width.
func contentWidths(rows []row) []int {
	widest := make([]int, len(allColumns))
	for _, r := range rows {
		for i, c := range allColumns {
			if c.content != nil {
				widest[i] = max(widest[i], c.content(r))
			}
		}
	}
	return widest
}

// layoutColumns chooses the columns and their widths for a table width,
// given the content widths of allColumns: dropping columns in their drop
// order until the rest fit; then the address gives up what is still
// missing, down to its minimum; or, when width is left over, the columns
// whose cells would be cut take it.
func layoutColumns(width int, widest []int) []column {
	cols := append([]column(nil), allColumns...)
	for i := range min(len(cols), len(widest)) { // none before the first rows
		cols[i].want = widest[i]
	}
	cols[addressColumn].width = min(max(cols[addressColumn].want, minAddressWidth), maxAddressWidth)
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
	spread(cols, width-total(cols))
	return cols
}

func total(cols []column) int {
	n := rowMarker
	for _, c := range cols {
		n += c.width
	}
	return n + columnGap*(len(cols)-1)
}

// spread gives spare cells to the columns whose content is wider than
// they are, each up to its content's width, the smallest shortfall first:
// the spare width makes as many columns whole as it can. A cut address,
// event or IP address loses its tail, which is often what tells rows
// apart (the instance key, the age, the port).
func spread(cols []column, spare int) {
	for spare > 0 {
		next := -1
		for i, c := range cols {
			if c.want > c.width && (next < 0 || c.want-c.width < cols[next].want-cols[next].width) {
				next = i
			}
		}
		if next < 0 {
			return
		}
		more := min(cols[next].want-cols[next].width, spare)
		cols[next].width += more
		spare -= more
	}
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

// lostCell is the probes lost of those sent, as status shows them.
func lostCell(r row, _ time.Time) string {
	p := r.obj.Probe
	if p == nil {
		return ""
	}
	return ProbeLoss(p.Lost, p.Sent)
}

func lostWidth(r row) int {
	p := r.obj.Probe
	if p == nil {
		return 0
	}
	return digits(p.Lost) + 1 + digits(p.Sent) // without formatting a string per row
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

// lastEventWidth is the widest lastEventCell can be for the row, the age
// at its widest ("5h02m"; past 99 days "100d04h" is cut by two cells).
func lastEventWidth(r row) int {
	name, at := shownEvent(r.obj)
	if name == "" || at.IsZero() {
		return cellWidth(name)
	}
	return cellWidth(name) + len(" 5h02m ago")
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
