package tui

import (
	"strconv"
	"time"
)

// column is one column of the table.
type column struct {
	title string
	// width is a fixed column's width; for a column with content, its
	// natural width is its content's (see natural), and width is what it
	// is given by the layout.
	width int
	// drop orders which columns go first when the terminal is too narrow:
	// the highest goes first; 0 never goes.
	drop int
	// core columns say why something is broken (reason, retries, loss,
	// round trip): before one of them goes, the address and the last
	// event give up width, down to their minimum.
	core bool
	// shrink is the narrowest a column that can be cut goes (ADDRESS,
	// LAST EVENT); 0 for the others.
	shrink int
	// capAt, when set, is the most a column takes while others still
	// want width (ADDRESS: 40).
	capAt int
	right bool // numbers align right
	cell  func(r row, now time.Time) string
	// fitCell, when set, fits the cell to the width itself, leaving out
	// words rather than cutting one.
	fitCell func(r row, now time.Time, width int) string
	// content is the widest the column's cell can be for a row at any
	// time (so that the layout does not change as clocks tick); nil for
	// columns of fixed width.
	content func(r *row) int
	want    int // per layout: the content's width over the rows
	// optional columns show only when a row has something in them: HOST
	// and TREND, a fabric's (see hosts.go).
	optional bool
}

const (
	minAddressWidth   = 12
	maxAddressWidth   = 40 // unless the terminal has width to spare
	minLastEventWidth = 12
	statusWidth       = 12 // "reconnecting", "disconnected"
)

// allColumns lists the columns left to right. ADDRESS is first and its width
// is set per layout; STATUS is rendered by the table itself, in colour.
// Narrow terminals drop, in order: KIND (the address already says it), QP,
// LOCAL, UP, DEVICE and REMOTE; then ADDRESS and LAST EVENT give up width;
// then RTT, LOST, RECONN and, last, LAST EVENT, which says why something is
// broken. ADDRESS and STATUS stay. See layoutColumns.
var allColumns = []column{
	hostColumn,
	{title: "ADDRESS", shrink: minAddressWidth, capAt: maxAddressWidth, cell: func(r row, _ time.Time) string { return r.label() },
		content: labelWidth},
	{title: "KIND", width: 8, drop: 12, cell: func(r row, _ time.Time) string { return shortKind(r.obj.Kind) }},
	{title: "STATUS", width: statusWidth},
	{title: "LOCAL", drop: 10, cell: func(r row, _ time.Time) string { return r.obj.LocalAddr },
		content: func(r *row) int { return cellWidth(r.obj.LocalAddr) }},
	{title: "REMOTE", drop: 7, cell: func(r row, _ time.Time) string { return r.obj.RemoteAddr },
		content: func(r *row) int { return cellWidth(r.obj.RemoteAddr) }},
	{title: "QP", drop: 11, cell: qpCell, content: qpWidth},
	{title: "DEVICE", drop: 8, cell: func(r row, _ time.Time) string { return device(r.obj) },
		content: deviceWidth},
	{title: "UP", width: 6, drop: 9, right: true, cell: uptimeCell},
	{title: "RECONN", width: 6, drop: 2, core: true, right: true, cell: reconnectsCell},
	{title: "RTT", width: 7, drop: 4, core: true, right: true, cell: rttCell},
	{title: "LOST", drop: 3, core: true, right: true, cell: lostCell, content: lostWidth},
	{title: "LAST EVENT", drop: 1, core: true, shrink: minLastEventWidth, cell: lastEventCell, fitCell: fitLastEvent, content: lastEventWidth},
	trendColumn,
}

const (
	addressColumn = 1
	statusColumn  = 3
	columnGap     = 1
	rowMarker     = 2 // "▸ " before the selected row
)

// natural is the width a column takes when the terminal has room: its
// content's, at least its title's, at most its cap.
func (c column) natural() int {
	if c.content == nil {
		return c.width
	}
	n := max(c.want, cellWidth(c.title), c.shrink)
	if c.capAt > 0 {
		n = min(n, max(c.capAt, c.shrink))
	}
	return n
}

// layoutColumns allocates a table width to the columns, given the
// content widths of allColumns. Each column starts at its natural width;
// while they do not fit, the columns that do not say why something is
// broken go, lowest priority first (KIND, QP, LOCAL, UP, DEVICE, REMOTE);
// then ADDRESS and LAST EVENT give up width, the wider first, down to
// their minimum; then the core columns go (RTT, LOST, RECONN, LAST EVENT
// last). Width left over goes to the cells that would be cut.
func layoutColumns(width int, widest []int) []column {
	cols := append([]column(nil), allColumns...)
	for i := range min(len(cols), len(widest)) { // none before the first rows
		cols[i].want = widest[i]
	}
	for i := len(cols) - 1; i >= 0; i-- {
		if cols[i].optional && cols[i].want == 0 {
			cols = append(cols[:i], cols[i+1:]...)
		}
	}
	for i := range cols {
		cols[i].width = cols[i].natural()
	}
	dropWhile := func(core bool) {
		for total(cols) > width {
			worst := -1
			for i, c := range cols {
				if c.drop > 0 && c.core == core && (worst < 0 || c.drop > cols[worst].drop) {
					worst = i
				}
			}
			if worst < 0 {
				return
			}
			cols = append(cols[:worst], cols[worst+1:]...)
		}
	}
	dropWhile(false)
	shrinkToFit(cols, width)
	dropWhile(true)
	shrinkToFit(cols, width)
	spread(cols, width-total(cols))
	return cols
}

// shrinkToFit takes the width still missing from the columns that can be
// cut, a cell at a time from the one with the most above its minimum, so
// that the address and the last event are cut alike.
func shrinkToFit(cols []column, width int) {
	for over := total(cols) - width; over > 0; over-- {
		widest := -1
		for i, c := range cols {
			if c.shrink > 0 && c.width > c.shrink && (widest < 0 || c.width-c.shrink > cols[widest].width-cols[widest].shrink) {
				widest = i
			}
		}
		if widest < 0 {
			return
		}
		cols[widest].width--
	}
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

func lostWidth(r *row) int {
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
	if r.obj.Kind == KindProtectionDomain || r.obj.Kind == KindListener || r.obj.Status == StatusMissing {
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
func lastEventWidth(r *row) int {
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

// fitLastEvent is the last event in width cells: whole, or without
// "ago", or without its age, before the name itself is cut: the name is
// what says why.
func fitLastEvent(r row, now time.Time, width int) string {
	name, at := shownEvent(r.obj)
	if name == "" || at.IsZero() {
		return fit(name, width)
	}
	age := span(now.Sub(at))
	for _, s := range []string{name + " " + age + " ago", name + " " + age} {
		if cellWidth(s) <= width {
			return fit(s, width)
		}
	}
	return fit(name, width)
}

// contentColumns are the indexes in allColumns of the columns with
// content, whose widths the table measures.
var contentColumns = func() []int {
	if len(allColumns) > maxColumns {
		panic("tui: more columns than maxColumns")
	}
	var cs []int
	for i, c := range allColumns {
		if c.content != nil {
			cs = append(cs, i)
		}
	}
	return cs
}()
