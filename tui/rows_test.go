package tui

import (
	"errors"
	"slices"
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
	rows := buildRows(fixtureMap(), newMatcher(""), sortByAddress, folded)
	if got := addresses(rows); slices.Contains(got, "listener.storage/conn/1") {
		t.Errorf("folded listener still shows its connections: %q", got)
	}
	if l := rows[1].label(); l != "listener.storage [+2]" {
		t.Errorf("folded listener label = %q", l)
	}
	rows = buildRows(fixtureMap(), newMatcher("disconnected"), sortByAddress, folded)
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
		{200, []string{"ADDRESS", "KIND", "STATUS", "LOCAL", "REMOTE", "QP", "DEVICE", "UP", "RECONN", "RTT", "LAST EVENT"}},
		{120, []string{"ADDRESS", "STATUS", "REMOTE", "DEVICE", "UP", "RECONN", "RTT", "LAST EVENT"}},
		{80, []string{"ADDRESS", "STATUS", "REMOTE", "UP", "RTT"}},
		{40, []string{"ADDRESS", "STATUS"}},
	} {
		if got := titles(layoutColumns(tc.width, 20)); !slices.Equal(got, tc.want) {
			t.Errorf("width %d: columns %q, want %q", tc.width, got, tc.want)
		}
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
	got := addresses(buildRows(objs, newMatcher("rej"), sortByAddress, nil))
	if want := []string{"listener.storage", "endpoint.client[2]"}; !slices.Equal(got, want) {
		t.Errorf("/rej keeps %q, want %q", got, want)
	}
	got = addresses(buildRows(objs, newMatcher("route_res"), sortByAddress, nil))
	if want := []string{`endpoint.backup["east"]`}; !slices.Equal(got, want) {
		t.Errorf("/route_res keeps %q, want %q", got, want)
	}
}
