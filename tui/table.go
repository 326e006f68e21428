package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// tablePane lists the objects, one row each. Rows are keyed by address:
// the selection follows its object while rows are added, removed or
// reordered around it, and only the rows on screen are rendered.
type tablePane struct {
	w    *world
	st   *styles
	keys *keyMap
	now  func() time.Time

	width, height int // height includes the title and the column titles
	focused       bool

	sort   sortMode
	rtt    rttOrder // the rtt sort's placement of rows
	filter string
	// unhealthy shows only the objects that are not healthy (`!`).
	unhealthy bool
	// ungrouped: a fabric's rows are not grouped by host (`h`).
	ungrouped bool
	folded    map[string]bool

	order        *tableOrder
	changed      []*slot // the slots a refresh takes, reused
	rows         []row
	spare        []row // the rows before, reused
	widest       []int // allColumns' content widths over the rows, for the layout
	builtVersion uint64
	dirty        bool // sort, filter or folding changed since the rows were built

	lines rowCache

	cursor   int
	offset   int    // first row on screen
	selected string // the selected object's address
}

func newTablePane(w *world, st *styles, keys *keyMap, now func() time.Time) *tablePane {
	return &tablePane{w: w, st: st, keys: keys, now: now, folded: make(map[string]bool), order: newTableOrder(), dirty: true, focused: true}
}

// chrome is the number of lines above the rows: the title and column titles.
const tableChrome = 2

func (t *tablePane) setSize(width, height int) {
	t.width, t.height = width, height
	t.scrollToCursor()
}

func (t *tablePane) pageSize() int { return max(t.height-tableChrome, 1) }

func (t *tablePane) setSort(s sortMode) {
	t.sort, t.dirty = s, true
	t.rtt.reset() // choosing the rtt sort places rows by their round trips now
	t.refresh()
}

func (t *tablePane) setFilter(f string) { t.filter, t.dirty = f, true; t.refresh() }

func (t *tablePane) toggleUnhealthy() { t.unhealthy, t.dirty = !t.unhealthy, true; t.refresh() }

// jumpToPeer selects the object at the other end of the selected one's
// connection, unfolding its listener if need be; it reports false when
// there is none, or the filter hides it.
func (t *tablePane) jumpToPeer() (string, bool) {
	o := t.selectedObject()
	if o == nil {
		return "", false
	}
	peer, ok := t.w.peers[o.Address]
	if !ok {
		return "", false
	}
	if p := t.w.object(peer); p != nil && p.Parent != "" && t.folded[p.Parent] {
		t.folded[p.Parent], t.dirty = false, true
		t.refresh()
	}
	i, ok := t.rowOf(peer)
	if !ok {
		return peer, false
	}
	t.moveTo(i)
	return peer, true
}

// refresh rebuilds the rows when the objects or the view changed, keeping
// the selection on its object and that object's row where it was on
// screen. If the object is gone, the selection moves to the row now in its
// place.
func (t *tablePane) refresh() {
	if !t.dirty && t.builtVersion == t.w.version {
		return
	}
	onScreen := t.cursor - t.offset
	t.changed = t.w.takeChanged(t.changed[:0])
	changed := t.changed
	if t.dirty { // the sort or the filter changed: every row's key or match may have
		for _, e := range t.order.entries {
			changed = append(changed, e.slot) // the order takes a slot given twice once
		}
	}
	if t.sort == sortByRTT {
		if t.dirty {
			t.rtt.place(t.w)
		} else {
			for _, s := range changed {
				t.rtt.placeOne(s.addr, s.shown)
			}
		}
	}
	m := newMatcher(t.filter, t.unhealthy)
	dirty := t.dirty
	// Each entry that stays where it is has its row patched as the order
	// takes it, while its object is at hand (a batch that changes every
	// row reads each object once); patching costs the row's measure, no
	// lookup (its entry knows its row), where laying out costs a pass
	// over all the rows. A batch that moves no row is patched, however
	// many it changes.
	patched := !dirty
	reshaped := t.order.update(changed, func(e *entry) {
		e.key = keyFor(t.sort, e.obj, &e.slot.tally, &t.rtt, e.name)
		e.key.group = t.group(e.obj)
		e.match = m.match(e.obj)
		if e.slot.peerMoved || !e.peerKnown {
			e.peer, e.peerKnown = t.w.peers[e.obj.Address], true
		}
	}, func(e *entry) {
		patched = patched && t.patchRow(e)
	})
	for _, s := range changed {
		s.peerMoved = false
		t.w.release(s) // an address gone for good frees its slot
	}
	if dirty || reshaped || !patched {
		old := t.rows
		t.rows, t.widest = t.order.rows(t.spare[:0], m.all(), t.folded)
		t.spare = old
	}
	t.builtVersion, t.dirty = t.w.version, false
	if i, ok := t.rowOf(t.selected); ok {
		t.cursor = i
	} else {
		t.cursor = min(t.cursor, len(t.rows)-1)
	}
	t.offset = t.cursor - onScreen
	t.moveTo(t.cursor)
}

// rowOf is the row that shows address a, if one does: its entry knows
// its row. Rows are not indexed by address: a batch that moves every
// row (sorted by severity) would index them all again.
func (t *tablePane) rowOf(a string) (int, bool) {
	s := t.w.slots[a]
	if s == nil || s.entry == nil {
		return 0, false
	}
	i := s.entry.row
	if i < 0 || i >= len(t.rows) || t.rows[i].obj.Address != a { // not shown: its row is another's
		return 0, false
	}
	return i, true
}

// moveTo moves the cursor to row i, clamped, and scrolls it into view.
func (t *tablePane) moveTo(i int) {
	t.cursor = max(min(i, len(t.rows)-1), 0)
	if len(t.rows) > 0 {
		t.selected = t.rows[t.cursor].obj.Address
	}
	t.scrollToCursor()
}

func (t *tablePane) scrollToCursor() {
	page := t.pageSize()
	if t.cursor < t.offset {
		t.offset = t.cursor
	}
	if t.cursor >= t.offset+page {
		t.offset = t.cursor - page + 1
	}
	t.offset = max(min(t.offset, len(t.rows)-page), 0)
	t.scrollPastHeaders()
}

// selectedObject is the object under the cursor, or nil.
func (t *tablePane) selectedObject() *Object {
	if t.cursor < 0 || t.cursor >= len(t.rows) {
		return nil
	}
	return t.rows[t.cursor].obj
}

func (t *tablePane) Init() tea.Cmd { return nil }

// Update moves the selection and folds listeners.
func (t *tablePane) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	switch {
	case key.Matches(k, t.keys.Up):
		t.moveTo(t.cursor - 1)
	case key.Matches(k, t.keys.Down):
		t.moveTo(t.cursor + 1)
	case key.Matches(k, t.keys.PageUp):
		t.moveTo(t.cursor - t.pageSize())
	case key.Matches(k, t.keys.PageDown):
		t.moveTo(t.cursor + t.pageSize())
	case key.Matches(k, t.keys.Top):
		t.moveTo(0)
	case key.Matches(k, t.keys.Bottom):
		t.moveTo(len(t.rows) - 1)
	case key.Matches(k, t.keys.Fold):
		t.toggleFold()
	}
	return nil
}

// toggleFold folds or unfolds the selected listener, or the listener of the
// selected connection, which then becomes the selection.
func (t *tablePane) toggleFold() {
	o := t.selectedObject()
	if o == nil {
		return
	}
	listener := o.Address
	if t.rows[t.cursor].child {
		listener = o.Parent
	} else if t.rows[t.cursor].children == 0 {
		return
	}
	t.folded[listener] = !t.folded[listener]
	t.selected, t.dirty = listener, true
	t.refresh()
}

// View renders the title, the column titles and the rows on screen.
func (t *tablePane) View() string {
	if t.width <= 0 || t.height <= 0 {
		return ""
	}
	cols := t.lines.columns(t.width, t.widest)
	now := t.w.at(t.now())
	var b strings.Builder
	b.WriteString(fit(t.title(), t.width))
	if t.height > 1 {
		b.WriteByte('\n')
		b.WriteString(t.st.colHeader.Render(fit(t.headerLine(cols), t.width)))
	}
	page := t.height - tableChrome
	lines, end := 0, t.offset // end: past the last row drawn
	for i := t.offset; i < len(t.rows) && lines < page; i++ {
		if t.grouped() && t.headed(i) {
			b.WriteByte('\n')
			b.WriteString(t.hostHeader(t.rows[i].obj.Host))
			if lines++; lines == page {
				break
			}
		}
		b.WriteByte('\n')
		look := rowLook{r: t.rows[i], layout: t.lines.layout, selected: i == t.cursor, focused: t.focused, kept: t.w.kept,
			clock: rowClock(t.rows[i], now)}
		b.WriteString(t.lines.line(look, func() string { return t.renderRow(cols, i, now) }))
		lines, end = lines+1, i+1
	}
	t.lines.forget(t.rows[t.offset:end])
	for ; lines < page; lines++ {
		b.WriteByte('\n')
		b.WriteString(strings.Repeat(" ", t.width))
	}
	if len(t.rows) == 0 && page > 0 {
		return t.withEmptyNote(b.String())
	}
	return b.String()
}

func (t *tablePane) title() string {
	s := fmt.Sprintf("Objects %d", len(t.rows))
	if t.filter != "" || t.unhealthy || len(t.rows) != t.w.shownN {
		s = fmt.Sprintf("Objects %d of %d", len(t.rows), t.w.shownN)
	}
	s += " · sort: " + t.sort.String()
	if t.sort == sortByRTT {
		s += " (mean, held within ×2)" // rows do not look out of order by mistake: see rttOrder
	}
	if t.unhealthy {
		s += " · unhealthy only"
	}
	if t.filter != "" {
		s += " · filter: " + t.filter
	}
	if len(t.rows) > 0 {
		s += fmt.Sprintf(" · row %d", t.cursor+1)
	}
	return s
}

func (t *tablePane) headerLine(cols []column) string {
	var b strings.Builder
	b.WriteString(strings.Repeat(" ", rowMarker))
	for i, c := range cols {
		if i > 0 {
			b.WriteByte(' ')
		}
		if c.right {
			b.WriteString(fitRight(c.title, c.width))
		} else {
			b.WriteString(fit(c.title, c.width))
		}
	}
	return b.String()
}

// renderRow renders row i: the whole row in its health's colour, its
// status cell in the status's, dimmed when the agent does not hold the
// object or the picture is the last one of an agent gone.
func (t *tablePane) renderRow(cols []column, i int, now time.Time) string {
	r := t.rows[i]
	selected := i == t.cursor
	rowStyle, coloured := t.st.row[healthOf(r.obj)]
	kept := t.rowDim(r.obj)
	dim := r.obj.Status == StatusMissing || kept
	if r.obj.Host != "" {
		now = t.w.hostAt(r.obj.Host, now)
	}
	if dim {
		rowStyle, coloured = t.st.dim, true
	}
	var b strings.Builder
	b.Grow(t.width + 32)
	var line string
	flush := func() { // the cells so far, in the row's colour
		if coloured && !selected && b.Len() > 0 {
			line += rowStyle.Render(b.String())
		} else {
			line += b.String()
		}
		b.Reset()
	}
	if selected {
		b.WriteString("▸ ")
	} else {
		b.WriteString("  ")
	}
	for ci, c := range cols {
		if ci > 0 {
			b.WriteByte(' ')
		}
		if c.cell == nil { // the status column
			flush()
			status := shownStatus(r.obj)
			cell := fit(status, c.width)
			if !selected && !kept {
				cell = t.st.statusText(status, cell)
			} else if !selected {
				cell = t.st.dim.Render(cell)
			}
			line += cell
			continue
		}
		switch {
		case c.fitCell != nil:
			b.WriteString(c.fitCell(r, now, c.width))
		case c.right:
			b.WriteString(fitRight(c.cell(r, now), c.width))
		default:
			b.WriteString(fit(c.cell(r, now), c.width))
		}
	}
	if w := total(cols); w < t.width {
		b.WriteString(strings.Repeat(" ", t.width-w))
	}
	flush()
	if selected {
		if t.focused {
			return t.st.selected.Render(line)
		}
		return t.st.unfocused.Render(line)
	}
	return line
}

// withEmptyNote puts a note in the first row of an empty table.
func (t *tablePane) withEmptyNote(view string) string {
	note := "  no objects"
	switch {
	case t.filter != "":
		note = "  nothing matches the filter " + fmt.Sprintf("%q", t.filter)
	case t.unhealthy:
		note = "  nothing unhealthy (! shows every object)"
	case !t.w.synced:
		note = "  waiting for the agent's first snapshot…"
	}
	lines := strings.Split(view, "\n")
	lines[tableChrome] = t.st.dim.Render(fit(note, t.width))
	return strings.Join(lines, "\n")
}

// patchRow puts an entry that stays where it is in the order into its
// row, and widens the columns its cells need: a batch that moves no row
// (none moved, came, went or changed its match) then costs its size,
// not a pass over every row. It reports false, leaving the rows to be
// laid out again, when the row narrowed a column it was the widest of,
// or its place is not known.
func (t *tablePane) patchRow(e *entry) bool {
	i := e.row
	if i >= len(t.rows) || t.rows[i] != e.measured { // the row measured last is the one shown, if any
		// Not shown (folded, or filtered out): nothing to patch; shown,
		// yet not laid out: lay out again.
		return !e.match || e.top || t.folded[e.obj.Parent]
	}
	r := t.rows[i]
	r.obj, r.peer = e.obj, e.peer
	before := e.widths
	e.measure(r)
	for _, c := range contentColumns {
		if w := int(e.widths[c]); w < int(before[c]) && int(before[c]) == t.widest[c] {
			return false // it may have been the widest: measure them all
		} else if w > t.widest[c] {
			t.widest[c] = w
		}
	}
	t.rows[i] = r
	return true
}
