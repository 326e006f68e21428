package tui

import (
	"strings"
	"time"
)

// historyLen is how many probe samples an object keeps: a minute at the
// agent's default probe interval, one sparkline's width.
const historyLen = 60

// lossMemory is how long after a probe was lost the object still ranks
// as losing probes (healthLostProbes).
const lossMemory = time.Minute

// probeHistory is a small ring of an object's probe samples, taken each
// time the agent reports more probes sent: the round trip of the last
// probe, and the share of the probes sent since the previous sample that
// were lost.
type probeHistory struct {
	// The counts first, in one cache line: a batch reads them of every
	// object it changes (add, the TREND column's width), the rings only
	// when a sample is taken or drawn.
	n, next            int
	lastSent, lastLost uint64
	lostAt             time.Time // when a sample last showed a loss
	rtt, loss          [historyLen]float32
}

// add takes in an object's probe statistics as of now, and reports
// whether probes were lost lately.
func (h *probeHistory) add(p *ProbeStats, now time.Time) bool {
	if p.Sent < h.lastSent || p.Lost < h.lastLost {
		h.lastSent, h.lastLost = 0, 0 // a new connection's counts: its samples follow the old one's
	}
	if p.Sent == h.lastSent {
		return h.lostRecently(now)
	}
	sent, lost := p.Sent-h.lastSent, p.Lost-h.lastLost
	first := h.n == 0
	h.lastSent, h.lastLost = p.Sent, p.Lost
	if first {
		// The first sample's counts are the connection's whole life, not
		// a moment: only the round trip is a sample.
		lost = 0
	}
	if lost > 0 {
		h.lostAt = now
	}
	h.rtt[h.next] = float32(p.Last)
	h.loss[h.next] = float32(lost) / float32(sent)
	h.next = (h.next + 1) % historyLen
	h.n = min(h.n+1, historyLen)
	return h.lostRecently(now)
}

func (h *probeHistory) lostRecently(now time.Time) bool {
	return !h.lostAt.IsZero() && now.Sub(h.lostAt) < lossMemory
}

// samples returns the ring's values oldest first.
func (h *probeHistory) samples(ring *[historyLen]float32) []float32 {
	out := make([]float32, 0, h.n)
	for i := range h.n {
		out = append(out, ring[(h.next-h.n+i+historyLen)%historyLen])
	}
	return out
}

// sparkBlocks draw a sparkline as btop does, eight heights a cell.
var sparkBlocks = []rune("▁▂▃▄▅▆▇█")

// sparkline draws values scaled to the largest (ceiling, when larger: a
// loss rate is drawn against 100%), the newest last, at most width cells.
func sparkline(values []float32, ceiling float32, width int) string {
	if len(values) > width {
		values = values[len(values)-width:]
	}
	top := ceiling
	for _, v := range values {
		top = max(top, v)
	}
	var b strings.Builder
	for _, v := range values {
		i := 0
		if top > 0 && v > 0 {
			i = min(int(v/top*float32(len(sparkBlocks)-1)+0.5), len(sparkBlocks)-1)
			i = max(i, 1) // anything above zero shows
		}
		b.WriteRune(sparkBlocks[i])
	}
	return b.String()
}
