package tui

import (
	"fmt"
	"strings"
)

// A fabric's rows grouped by host (the default; `h` toggles) are headed,
// on screen, by a line per host: its name and address, whether it
// answers, and its counts of objects and problems, so that a host that
// does not answer reads as such above its kept rows. A header is drawn
// where the host changes and above the first row on screen; it is not a
// row (it cannot be selected), so the rows, their index and the
// selection are as without.

// hostTotal is a host's counts, kept as objects change (world.count).
type hostTotal struct{ objects, problems int }

// grouped reports whether the rows are a fabric's, grouped by host.
func (t *tablePane) grouped() bool { return t.w.fabric() && !t.ungrouped }

// headed reports whether row i is drawn under a host header: the first
// row on screen, and each row whose host is not the previous row's.
func (t *tablePane) headed(i int) bool {
	return i == t.offset || t.rows[i].obj.Host != t.rows[i-1].obj.Host
}

// linesTo is how many lines the rows from the first on screen to row i
// take, their host headers included.
func (t *tablePane) linesTo(i int) int {
	n := 0
	for j := t.offset; j <= i && j < len(t.rows); j++ {
		n++
		if t.grouped() && t.headed(j) {
			n++
		}
	}
	return n
}

// scrollPastHeaders moves the first row on screen down until the
// cursor's row fits under the headers drawn above it.
func (t *tablePane) scrollPastHeaders() {
	if !t.grouped() {
		return
	}
	for t.offset < t.cursor && t.linesTo(t.cursor) > t.pageSize() {
		t.offset++
	}
}

// hostHeader is host's header line: name, whether it answers, counts,
// then its address, which a narrow terminal cuts first.
func (t *tablePane) hostHeader(host string) string {
	hv := t.w.hosts[host]
	if hv == nil {
		return fit("── "+hostLabel(host)+" ", t.width)
	}
	state := "reachable"
	switch {
	case t.w.hostDown(host) && hv.synced:
		state = "unreachable as of " + hv.lastUpdate.Format("15:04:05")
	case t.w.hostDown(host):
		state = "unreachable, never answered"
	case !hv.link.up:
		state = "connecting"
	}
	tot := t.w.hostTotals[host]
	if tot == nil {
		tot = &hostTotal{}
	}
	s := fmt.Sprintf("── %s · %s · %d %s", hostLabel(host), state, tot.objects, plural(tot.objects, "object", "objects"))
	if tot.problems > 0 {
		s += fmt.Sprintf(" · %d %s", tot.problems, plural(tot.problems, "problem", "problems"))
	}
	s += " · " + hv.target + " "
	if w := cellWidth(s); w < t.width {
		s += strings.Repeat("─", t.width-w)
	}
	line := fit(s, t.width)
	switch {
	case t.w.hostDown(host):
		return t.st.dim.Render(line)
	case tot.problems > 0:
		return t.st.problems.Render(line)
	}
	return t.st.bold.Render(line)
}
