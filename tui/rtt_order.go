package tui

import (
	"cmp"
	"time"
)

// rttOrder is the table's order under the rtt sort. Round trips jitter
// from one probe to the next (tenfold on a loaded Soft-RoCE host), and
// sorting by the last one moved rows every second. Rows are ordered by
// their probes' mean round trip, which jitter hardly moves, and each row
// is placed by the mean it had when the sort was chosen or when it
// appeared, and moves only when that mean has since halved or doubled, or
// the probe started or stopped: a connection that stays slow still comes
// up, jitter moves nothing. Choosing the rtt sort again (s through the
// other sorts) places every row afresh.
type rttOrder struct {
	placed map[string]time.Duration // address to the round trip it is placed by
}

// place records each object's round trip, keeping the one it was placed
// by while the new one is within a factor of two of it.
func (r *rttOrder) place(w *world) {
	if r.placed == nil {
		r.placed = make(map[string]time.Duration, w.shownN)
	}
	for addr := range r.placed {
		if w.object(addr) == nil {
			delete(r.placed, addr)
		}
	}
	for addr, o := range w.shownObjects {
		r.placeOne(addr, o)
	}
}

// placeOne places the object at addr, or forgets it when o is nil.
func (r *rttOrder) placeOne(addr string, o *Object) {
	if r.placed == nil {
		r.placed = make(map[string]time.Duration)
	}
	if o == nil {
		delete(r.placed, addr)
		return
	}
	now := sortRTT(o)
	if was, ok := r.placed[addr]; !ok || moved(was, now) {
		r.placed[addr] = now
	}
}

// reset forgets where rows were placed: the next place sorts afresh.
func (r *rttOrder) reset() { clear(r.placed) }

// compare puts the slowest first, by the round trips the rows are placed
// by; ties fall back to the address, so the order is total.
func (r *rttOrder) compare(a, b *Object) int {
	if c := cmp.Compare(r.placed[b.Address], r.placed[a.Address]); c != 0 {
		return c
	}
	return compareAddress(a, b)
}

// moved reports whether a round trip changed enough to move its row: it
// halved or doubled, or the probe started or stopped.
func moved(was, now time.Duration) bool {
	if was < 0 || now < 0 {
		return was != now
	}
	return now > 2*was || 2*now < was
}

// sortRTT is the round trip the rtt sort orders by: the probes' mean
// (the last one's until the agent has a mean), or -1 without a probe or
// when the probes were of a connection that has ended: an endpoint
// reconnecting goes with those that have no round trip, not where its
// old connection's stood.
func sortRTT(o *Object) time.Duration {
	switch {
	case o.Probe == nil || o.Probe.Ended:
		return -1
	case o.Probe.Mean > 0:
		return o.Probe.Mean
	}
	return o.Probe.Last
}
