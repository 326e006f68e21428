package tui

import (
	"cmp"
	"slices"
	"strings"
)

// tableOrder keeps the objects in the table's order as they change:
// top-level objects (those without a parent shown, connections whose
// listener is gone included) in sort order, each followed by its
// accepted connections, sorted the same way. A batch of changes takes
// out the objects whose sort key changed, sorts them by keys computed
// once and merges them back, so that it costs a pass over the rows and
// the sort of the changed ones, not a sort of them all with every
// comparison parsing two addresses; objects whose key stays stay put.
type tableOrder struct {
	entries map[string]*entry
	tops    []*entry            // objects without a parent shown, in order
	kids    map[string][]*entry // by parent address: every object that has one, in order
	// byName lists the entries by address, in natural order (naturalKey,
	// then the address): each entry's name is its place there. Entries
	// gone stay until entries come (name).
	byName []*entry
	gen    uint64 // marks the entries a batch moves
	// Buffers a batch reuses, so that a frame allocates none of the
	// size of the fabric: the entries it moves, the top-level ones among
	// them, the top-level list before, their keys to sort, the
	// connections among them by listener.
	moving, adding, spare []*entry
	kidsMoving            map[string][]*entry // by parent, those among moving, kept emptied
	keys                  []keyedEntry[uint64]
	buckets               []bucket
	sorts                 uint64 // marks the entries a bucket sort takes
	// layouts counts the layouts rows makes; kidsOf are the connections
	// of the listeners shown, there (entry.kidsAt).
	layouts uint64
	kidsOf  [][]*entry
}

// entry is one shown object and what the table computed of it. The
// fields a batch reads of every entry come first, in one cache line: a
// batch that changes every object reads 10,000 entries, in passes each
// a miss per line read.
type entry struct {
	mark uint64
	// sorting is the bucket sort that takes it (tableOrder.sorts), and
	// bucket its bucket there.
	sorting uint64
	// refreshed is the mark of the batch that last refreshed the entry
	// from its object: a batch refreshes an entry it moves once.
	refreshed uint64
	obj       *Object
	slot      *slot  // the world's, whose entry this is
	parent    string // obj's Parent, kept here: a change compares it without reading the old object
	bucket    int32
	top       bool // listed in tops: no parent, or its parent is not shown
	match     bool // the filter keeps it
	// peerKnown: peer was looked up once; from then on only a peer the
	// world says moved is looked up again.
	peerKnown bool
	key       sortKey
	// row is the entry's row when rows last laid it out: where the table
	// shows it, if the row there is its.
	row     int
	name    int    // its place in tableOrder.byName
	peer    string // the world's peers
	natural string // naturalKey of the address, kept for the object's life
	// measured is the row widths were measured for; a row's cells change
	// only when it does (the object, its peer, its listener's count).
	measured row
	widths   [maxColumns]int32
	// kidsAt is its connections' place in tableOrder.kidsOf, if kidsOf
	// is the last layout's (tableOrder.layouts).
	kidsAt int32
	kidsOf uint64
}

// maxColumns bounds allColumns, so that an entry holds its widths inline.
const maxColumns = 16

func newTableOrder() *tableOrder {
	return &tableOrder{entries: make(map[string]*entry), kids: make(map[string][]*entry)}
}

// update brings the order up to date with the objects of the changed
// slots; refresh computes an entry's key, match and peer from its
// object. Only the entries whose key or parent changed, and those that
// come or go, move. It reports whether any entry moved, came, went or
// changed its match: otherwise the rows are as they were, but for their
// objects, and stay has been called with each entry that stayed where
// it was (see tablePane.patchRow).
func (t *tableOrder) update(changed []*slot, refresh, stay func(e *entry)) (reshaped bool) {
	t.gen++
	moving := t.moving[:0]
	defer func() { t.moving = moving[:0] }()
	parents := make(map[string]struct{}) // kids lists that lose some
	var last string                      // the last parent added: connections come by listener
	take := func(e *entry) {
		if e.mark == t.gen {
			return
		}
		e.mark = t.gen
		moving = append(moving, e)
		if p := e.parent; p != "" && p != last { // its parent before
			parents[p] = struct{}{}
			last = p
		}
	}
	var born []*entry
	for _, s := range changed {
		e, o := s.entry, s.shown
		switch {
		case e == nil && o == nil:
			continue
		case e == nil: // its connections, top-level while it was not shown, go under it
			e = &entry{natural: naturalKey(s.addr), slot: s}
			born = append(born, e)
			t.entries[s.addr] = e
			s.entry = e
			for _, k := range t.kids[s.addr] {
				take(k)
			}
		case o == nil: // its connections go top-level
			delete(t.entries, s.addr)
			s.entry = nil
			for _, k := range t.kids[s.addr] {
				take(k)
			}
		case e.mark != t.gen && e.parent == o.Parent:
			key, match := e.key, e.match
			e.obj = o
			refresh(e)
			e.refreshed = t.gen
			reshaped = reshaped || e.match != match
			if e.key == key {
				stay(e)
				continue // it stays where it is: most changes leave the order as it was
			}
		}
		take(e)
		e.obj = o
		if o != nil {
			e.parent = o.Parent
		}
	}
	if len(moving) == 0 {
		return reshaped
	}
	t.name(born)
	taken := func(e *entry) bool { return e.mark == t.gen }
	t.tops = slices.DeleteFunc(t.tops, taken)
	for p := range parents {
		if t.kids[p] = slices.DeleteFunc(t.kids[p], taken); len(t.kids[p]) == 0 {
			delete(t.kids, p)
		}
	}
	tops := t.adding[:0]
	if t.kidsMoving == nil {
		t.kidsMoving = make(map[string][]*entry)
	}
	kids := t.kidsMoving
	for _, e := range moving {
		if e.obj == nil {
			continue // gone
		}
		if e.refreshed != t.gen { // its key's name, if any changed, name set
			refresh(e)
		}
		p := e.parent // e.obj's, set above: reading it again would be a miss
		if p != "" {
			kids[p] = append(kids[p], e)
		}
		e.top = p == "" || t.entries[p] == nil
		if e.top {
			tops = append(tops, e)
		}
	}
	if len(tops) > 0 { // the list before becomes the next batch's spare
		t.tops, t.spare = t.mergeSorted(t.spare[:0], t.tops, tops), t.tops
	}
	t.adding = tops[:0]
	for p, ks := range kids {
		if len(ks) == 0 { // none moved under p this batch, nor the one before: forget it
			delete(kids, p)
			continue
		}
		t.kids[p] = t.mergeSorted(nil, t.kids[p], ks)
		kids[p] = ks[:0]
	}
	return true
}

// name puts the entries born into byName, in order, and numbers them
// all again: the names of those already there change, but not their
// order, and so neither does the order of their keys.
func (t *tableOrder) name(born []*entry) {
	if len(born) == 0 {
		return
	}
	byAddress := func(a, b *entry) int {
		if c := strings.Compare(a.natural, b.natural); c != 0 {
			return c
		}
		return strings.Compare(a.slot.addr, b.slot.addr)
	}
	slices.SortFunc(born, byAddress)
	// Entries gone first: their slots may be another address's since.
	old := slices.DeleteFunc(t.byName, func(e *entry) bool { return e.slot.entry != e })
	all := make([]*entry, 0, len(t.entries))
	for len(old) > 0 || len(born) > 0 {
		var e *entry
		if len(born) == 0 || len(old) > 0 && byAddress(old[0], born[0]) < 0 {
			e, old = old[0], old[1:]
		} else {
			e, born = born[0], born[1:]
		}
		e.name, e.key.name = len(all), len(all)
		all = append(all, e)
	}
	t.byName = all
}

// keyedEntry is an entry with a copy of its key, to sort by.
type keyedEntry[K any] struct {
	key K
	e   *entry
}

// sortByKey sorts es by their keys. Many are sorted as copies of their
// keys side by side, so that comparing two reads neither entry (a batch
// that changes every row's severity sorts them all), packed in one
// integer where they fit.
func (t *tableOrder) sortByKey(es []*entry) {
	if len(es) < 64 {
		slices.SortFunc(es, func(a, b *entry) int { return a.key.compare(&b.key) })
		return
	}
	packed := t.keys[:0]
	for _, e := range es {
		k, ok := e.key.packed()
		if !ok {
			sortByWholeKey(es)
			return
		}
		packed = append(packed, keyedEntry[uint64]{k, e})
	}
	t.keys = packed[:0]
	if len(es)*4 >= len(t.byName) && t.bucketSort(es, packed) {
		return
	}
	slices.SortFunc(packed, func(a, b keyedEntry[uint64]) int { return cmp.Compare(a.key, b.key) })
	for i := range packed {
		es[i] = packed[i].e
	}
}

// bucket is the entries of one value of the packed keys' bits above the
// name, and where they go.
type bucket struct {
	high    uint64
	n, next int
}

// maxBuckets bounds the bucket sort's buckets, which it looks up one
// by one: a sort's own order (a severity, a status), the kinds and the
// hosts take a few values; more, and a comparison sort is no slower.
const maxBuckets = 64

// bucketSort sorts es, packed being their packed keys, as a counting
// sort with no comparison: the keys' bits above the name take a few
// values, and the name is the entry's place in byName, so the entries
// of each value, taken in byName's order, are in order. It costs a pass
// over byName: worth it for a batch that moves a good part of the rows
// (one that changes every row's severity). It reports false, es
// untouched, when the keys take more than maxBuckets values.
func (t *tableOrder) bucketSort(es []*entry, packed []keyedEntry[uint64]) bool {
	t.sorts++
	bs := t.buckets[:0]
	defer func() { t.buckets = bs[:0] }()
	last := -1
	for _, p := range packed {
		high := p.key >> nameBits
		if last < 0 || bs[last].high != high {
			last = slices.IndexFunc(bs, func(b bucket) bool { return b.high == high })
			if last < 0 {
				if len(bs) == maxBuckets {
					return false
				}
				last = len(bs)
				bs = append(bs, bucket{high: high})
			}
		}
		bs[last].n++
		p.e.sorting, p.e.bucket = t.sorts, int32(last)
	}
	order := make([]int, len(bs)) // the buckets by their values
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(bs[a].high, bs[b].high) })
	next := 0
	for _, i := range order {
		bs[i].next = next
		next += bs[i].n
	}
	placed := 0
	for _, e := range t.byName {
		if e.sorting == t.sorts {
			b := &bs[e.bucket]
			es[b.next] = e
			b.next++
			placed++
		}
	}
	if placed != len(es) { // an entry not named: cannot be, but es must stay whole
		for i := range packed {
			es[i] = packed[i].e
		}
		return false
	}
	return true
}

func sortByWholeKey(es []*entry) {
	ks := make([]keyedEntry[sortKey], len(es))
	for i, e := range es {
		ks[i] = keyedEntry[sortKey]{e.key, e}
	}
	slices.SortFunc(ks, func(a, b keyedEntry[sortKey]) int { return a.key.compare(&b.key) })
	for i := range ks {
		es[i] = ks[i].e
	}
}

// mergeSorted merges add, in any order, into list, in order, appending
// to out, which must not share list's array. A few
// added entries each find their place by binary search, and the entries
// between two places are copied at once; many are merged in one pass.
func (t *tableOrder) mergeSorted(out, list, add []*entry) []*entry {
	if len(add) == 0 {
		return append(out, list...)
	}
	byKey := func(a, b *entry) int { return a.key.compare(&b.key) }
	t.sortByKey(add)
	out = slices.Grow(out, len(list)+len(add))
	if len(add)*16 < len(list) {
		for _, e := range add {
			n, _ := slices.BinarySearchFunc(list, e, byKey)
			out = append(out, list[:n]...)
			out = append(out, e)
			list = list[n:]
		}
		return append(out, list...)
	}
	i, j := 0, 0
	for i < len(list) && j < len(add) {
		if byKey(add[j], list[i]) < 0 {
			out = append(out, add[j])
			j++
		} else {
			out = append(out, list[i])
			i++
		}
	}
	out = append(out, list[i:]...)
	return append(out, add[j:]...)
}

// rows lays the order out as table rows into dst, and measures the
// widest cell of each of allColumns over them. A listener is followed
// by its connections unless it is folded; while a filter is active
// (all is false), matching connections show even under a folded
// listener, and a listener shows when any of its connections match, so
// that matches keep their context.
func (t *tableOrder) rows(dst []row, all bool, folded map[string]bool) ([]row, []int) {
	widest := make([]int, len(allColumns))
	// Each listener shown is given its connections, rather than each
	// top-level entry looking its own up by its address, which would
	// read every object and hash its address.
	t.layouts++
	t.kidsOf = t.kidsOf[:0]
	for p, ks := range t.kids {
		if e := t.entries[p]; e != nil {
			e.kidsAt, e.kidsOf = int32(len(t.kidsOf)), t.layouts
			t.kidsOf = append(t.kidsOf, ks)
		}
	}
	add := func(e *entry, r row) {
		e.row = len(dst)
		dst = append(dst, r)
		e.measure(r)
		for _, i := range contentColumns {
			widest[i] = max(widest[i], int(e.widths[i]))
		}
	}
	for _, e := range t.tops {
		var kids []*entry
		if e.kidsOf == t.layouts {
			kids = t.kidsOf[e.kidsAt]
		}
		if !e.match && !slices.ContainsFunc(kids, func(k *entry) bool { return k.match }) {
			continue
		}
		isFolded := all && len(folded) > 0 && folded[e.obj.Address]
		add(e, row{obj: e.obj, children: len(kids), folded: isFolded, peer: e.peer})
		if isFolded {
			continue
		}
		for _, k := range kids {
			if k.match {
				add(k, row{obj: k.obj, child: true, peer: k.peer})
			}
		}
	}
	return dst, widest
}

// measure measures r's cells into e.widths, unless they are r's already.
func (e *entry) measure(r row) {
	if e.measured != r {
		e.measured = r
		for _, i := range contentColumns {
			e.widths[i] = int32(allColumns[i].content(&e.measured))
		}
	}
}
