package tui

import (
	"errors"
	"slices"
	"strconv"
	"testing"
	"time"
)

func addresses(rows []row) []string {
	var a []string
	for _, r := range rows {
		a = append(a, r.obj.Address)
	}
	return a
}

func fixtureMap() map[string]*Object {
	m := make(map[string]*Object)
	for _, o := range fixtureObjects() {
		m[o.Address] = &o
	}
	return m
}

func TestFoldedListenerHidesItsConnectionsUnlessFiltering(t *testing.T) {
	folded := map[string]bool{"listener.storage": true}
	rows := buildRows(fixtureMap(), newMatcher("", false), sortByAddress.compare, folded, nil)
	if got := addresses(rows); slices.Contains(got, "listener.storage/conn/1") {
		t.Errorf("folded listener still shows its connections: %q", got)
	}
	if l := rows[1].label(); l != "listener.storage [+2]" {
		t.Errorf("folded listener label = %q", l)
	}
	rows = buildRows(fixtureMap(), newMatcher("disconnected", false), sortByAddress.compare, folded, nil)
	if got, want := addresses(rows), []string{"listener.storage", "listener.storage/conn/2"}; !slices.Equal(got, want) {
		t.Errorf("filtered rows = %q, want %q (the match with its listener)", got, want)
	}
}

func TestNaturalCompareOrdersNumbersNumerically(t *testing.T) {
	in := []string{"endpoint.c[10]", "endpoint.c[2]", "endpoint.c[1]", "endpoint.b", "endpoint.c[02x]"}
	slices.SortFunc(in, naturalCompare)
	want := []string{"endpoint.b", "endpoint.c[1]", "endpoint.c[2]", "endpoint.c[02x]", "endpoint.c[10]"}
	if !slices.Equal(in, want) {
		t.Errorf("order = %q, want %q", in, want)
	}
}

func TestNarrowTerminalsDropColumnsInOrder(t *testing.T) {
	titles := func(cols []column) []string {
		var s []string
		for _, c := range cols {
			s = append(s, c.title)
		}
		return s
	}
	for _, tc := range []struct {
		width int
		want  []string
	}{
		{160, []string{"ADDRESS", "KIND", "STATUS", "LOCAL", "REMOTE", "QP", "DEVICE", "UP", "RECONN", "RTT", "LOST", "LAST EVENT"}},
		{159, []string{"ADDRESS", "STATUS", "LOCAL", "REMOTE", "QP", "DEVICE", "UP", "RECONN", "RTT", "LOST", "LAST EVENT"}},
		{150, []string{"ADDRESS", "STATUS", "LOCAL", "REMOTE", "DEVICE", "UP", "RECONN", "RTT", "LOST", "LAST EVENT"}},
		{140, []string{"ADDRESS", "STATUS", "REMOTE", "DEVICE", "UP", "RECONN", "RTT", "LOST", "LAST EVENT"}},
		{120, []string{"ADDRESS", "STATUS", "REMOTE", "DEVICE", "RECONN", "RTT", "LOST", "LAST EVENT"}},
		{110, []string{"ADDRESS", "STATUS", "REMOTE", "RECONN", "RTT", "LOST", "LAST EVENT"}},
		// From here on, what says why something is broken stays:
		// the address and the last event give up width first.
		{100, []string{"ADDRESS", "STATUS", "RECONN", "RTT", "LOST", "LAST EVENT"}},
		{80, []string{"ADDRESS", "STATUS", "RECONN", "RTT", "LOST", "LAST EVENT"}},
		{63, []string{"ADDRESS", "STATUS", "RECONN", "RTT", "LOST", "LAST EVENT"}},
		{60, []string{"ADDRESS", "STATUS", "RECONN", "LOST", "LAST EVENT"}},
		{50, []string{"ADDRESS", "STATUS", "RECONN", "LAST EVENT"}},
		{40, []string{"ADDRESS", "STATUS", "LAST EVENT"}},
		{30, []string{"ADDRESS", "STATUS"}},
	} {
		widest := make([]int, len(allColumns))
		for title, w := range map[string]int{"ADDRESS": 20, "LOCAL": 21, "REMOTE": 21, "QP": 7, "DEVICE": 8, "LOST": 7, "LAST EVENT": 24} {
			widest[slices.IndexFunc(allColumns, func(c column) bool { return c.title == title })] = w
		}
		if got := titles(layoutColumns(tc.width, widest)); !slices.Equal(got, tc.want) {
			t.Errorf("width %d: columns %q, want %q", tc.width, got, tc.want)
		}
	}
}

// A terminal wider than the columns need gives the spare width to the
// cells it would cut, the smallest shortfall first, up to their content.
func TestWideTerminalsShowCutCellsWhole(t *testing.T) {
	col := func(title string) int {
		return slices.IndexFunc(allColumns, func(c column) bool { return c.title == title })
	}
	widest := make([]int, len(allColumns))
	widest[col("ADDRESS")], widest[col("LOCAL")], widest[col("LAST EVENT")] = 60, 23, 28
	widths := func(width int) map[string]int {
		cols := layoutColumns(width, widest)
		if got := total(cols); got > width {
			t.Errorf("width %d: the columns take %d", width, got)
		}
		w := make(map[string]int)
		for _, c := range cols {
			w[c.title] = c.width
		}
		return w
	}
	if w := widths(240); w["ADDRESS"] != 60 || w["LOCAL"] != 23 || w["LAST EVENT"] != 28 {
		t.Errorf("240 columns: %v, want every cell whole", w)
	}
	// 11 short of that: LOCAL and LAST EVENT are whole, ADDRESS is cut.
	if w := widths(170); w["ADDRESS"] != 49 || w["LOCAL"] != 23 || w["LAST EVENT"] != 28 {
		t.Errorf("170 columns: %v", w)
	}
}

// An endpoint whose connection ended shows no round trip, as status: it
// was the ended connection's; the detail says whose its figures are.
func TestEndedConnectionShowsNoRoundTrip(t *testing.T) {
	p := &ProbeStats{Last: 2100 * time.Microsecond, Min: time.Millisecond, Mean: 2 * time.Millisecond, Max: 3 * time.Millisecond, Sent: 40}
	if got := rttCell(row{obj: &Object{Probe: p}}, time.Now()); got != "2.1ms" {
		t.Errorf("established: %q", got)
	}
	ended := *p
	ended.Ended = true
	if got := rttCell(row{obj: &Object{Probe: &ended}}, time.Now()); got != "" {
		t.Errorf("ended: %q", got)
	}
}

// A stale view's clocks stop when the link went down: its connections
// may be gone since, and their "up for" must not go on counting.
func TestStaleViewClocksStop(t *testing.T) {
	down := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	w := newWorld(nil)
	w.apply(feedMsg{snapshot: &snapshot{}, link: linkState{up: true}})
	if now := down.Add(time.Minute); !w.at(now).Equal(now) {
		t.Errorf("live view: %v", w.at(now))
	}
	w.apply(feedMsg{link: linkState{err: errors.New("gone"), downAt: down}})
	if got := w.at(down.Add(time.Minute)); !got.Equal(down) {
		t.Errorf("stale view: %v, want %v", got, down)
	}
}

// The filter finds objects by their last event too: a listener that
// rejected a request, an endpoint still resolving its route.
func TestFilterMatchesTheLastEvent(t *testing.T) {
	objs := fixtureMap()
	l := *objs["listener.storage"]
	l.LastEvent = "rejected a request"
	objs[l.Address] = &l
	got := addresses(buildRows(objs, newMatcher("rej", false), sortByAddress.compare, nil, nil))
	if want := []string{"listener.storage", "endpoint.client[2]"}; !slices.Equal(got, want) {
		t.Errorf("/rej keeps %q, want %q", got, want)
	}
	got = addresses(buildRows(objs, newMatcher("route_res", false), sortByAddress.compare, nil, nil))
	if want := []string{`endpoint.backup["east"]`}; !slices.Equal(got, want) {
		t.Errorf("/route_res keeps %q, want %q", got, want)
	}
}

// The LOST column shows loss as status does, and the layout's measure of
// it, which does not format a string per row, agrees with the cell.
func TestLostColumnAsStatus(t *testing.T) {
	if got := lostCell(row{obj: &Object{}}, time.Time{}); got != "" {
		t.Errorf("no probe: %q", got)
	}
	for _, p := range []ProbeStats{{}, {Lost: 9, Sent: 10}, {Lost: 3, Sent: 3000}, {Lost: 12345, Sent: 100000, Ended: true}} {
		r := row{obj: &Object{Probe: &p}}
		want := strconv.FormatUint(p.Lost, 10) + "/" + strconv.FormatUint(p.Sent, 10)
		if got := lostCell(r, time.Time{}); got != want {
			t.Errorf("%+v: %q, want %q", p, got, want)
		}
		if got := lostWidth(&r); got != len(want) {
			t.Errorf("%+v: width %d, want %d", p, got, len(want))
		}
	}
}
