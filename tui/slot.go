package tui

import "math/bits"

// slot is what the world and the table keep of one address, found with
// one lookup per update. A batch in which every one of 10,000 objects
// changes paid a lookup per map (held, shown, history, the table's
// entries and index), each a miss in memory, which made its frame cost
// 8–17 ms; it now pays one lookup (the panes read the shown objects
// through the slots too: world.object). Each slot has a dense index,
// given on first sight: a batch is merged, and the table brought up to
// date, in the order of the indices, so that slots and entries, allocated
// in that order, are read in the order they lie in memory rather than in
// the order the agent sent the changes. A slot stays while anything is
// held, shown or remembered at its address (its history stays for the
// monitor's life), and is then taken for another address (release).
type slot struct {
	addr  string
	index int32
	// peerMoved: the object's peer changed since the table last took the
	// changes.
	peerMoved bool
	held      *Object       // what the agent holds (w.held lists the slots that have one), or nil
	shown     *Object       // what the panes show (world.object), or nil
	hist      *probeHistory // the probes' recent round trips and losses, or nil
	// entry is the table's while it shows the object (tableOrder).
	entry *entry
	// tally is how shown counts in the totals, and filing (filed: it
	// has one) where the peer index files it: a change compares the new
	// object's with them rather than reading the old one again.
	tally  tally
	filing filedAt
	filed  bool
}

// slotChunk is how many slots are allocated at once: slots made
// together (a snapshot's) lie together in memory.
const slotChunk = 256

// slotOf is address a's slot, made on first sight.
func (w *world) slotOf(a string) *slot {
	if s := w.slots[a]; s != nil {
		return s
	}
	if n := len(w.free); n > 0 {
		s := w.free[n-1]
		w.free = w.free[:n-1]
		*s = slot{addr: a, index: s.index}
		w.slots[a] = s
		w.byIndex[s.index] = s
		return s
	}
	if len(w.slab) == cap(w.slab) {
		w.slab = make([]slot, 0, slotChunk)
	}
	w.slab = append(w.slab, slot{addr: a, index: int32(len(w.byIndex))})
	s := &w.slab[len(w.slab)-1]
	w.slots[a] = s
	w.byIndex = append(w.byIndex, s)
	return s
}

// historyOf is the probe history kept at address a, or nil: a slot with
// one stays for the monitor's life.
func (w *world) historyOf(a string) *probeHistory {
	if s := w.slots[a]; s != nil {
		return s.hist
	}
	return nil
}

// hold makes o (nil: none) what the agent holds at s's address; held
// changes only when the address comes or goes.
func (w *world) hold(s *slot, o *Object) {
	switch {
	case o == nil && s.held != nil:
		delete(w.held, s.addr)
	case o != nil && s.held == nil:
		w.held[s.addr] = s
	}
	s.held = o
}

// release frees s for another address if nothing is held, shown or
// remembered at its own any longer, and no merge or table is to take
// it: connections come and go under new names (conn/N climbs), and
// their slots would pile up. The table calls it once it has taken the
// changes.
func (w *world) release(s *slot) {
	i := int(s.index)
	if s.held != nil || s.shown != nil || s.hist != nil || s.entry != nil || s.peerMoved || w.slots[s.addr] != s ||
		i/64 < len(w.touched) && w.touched[i/64]&(1<<(i%64)) != 0 {
		return
	}
	delete(w.slots, s.addr)
	w.byIndex[i] = nil
	w.free = append(w.free, s)
}

// touch marks s for the next merge: its shown object may change. A slot
// touched twice is merged once.
func (w *world) touch(s *slot) {
	i := int(s.index)
	for len(w.touched) <= i/64 {
		w.touched = append(w.touched, 0)
	}
	w.touched[i/64] |= 1 << (i % 64)
}

// takeTouched yields the touched slots in the order of their indices,
// unmarking them.
func (w *world) takeTouched(yield func(*slot) bool) {
	for wi, word := range w.touched {
		if word == 0 {
			continue
		}
		w.touched[wi] = 0
		for word != 0 {
			b := bits.TrailingZeros64(word)
			word &^= 1 << b
			if !yield(w.byIndex[wi*64+b]) {
				// The rest stay marked for the next merge.
				w.touched[wi] |= word
				return
			}
		}
	}
}
