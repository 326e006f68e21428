package tui

import (
	"cmp"
	"strings"
)

// sortKey is a row's place in the table's order, computed once per
// object and sort rather than in every comparison: comparing two keys
// orders as sortMode.compare does (rttOrder.compare for the rtt sort),
// and the address breaks the ties compare leaves (endpoint.c[02] and
// endpoint.c[2]), so that the order is total. The address is its place
// among all the table's addresses in natural order (tableOrder.byName):
// a key is integers only, which compare without reading a string.
type sortKey struct {
	group int      // the host's place, when a fabric's rows are grouped by host; else zero
	by    [3]int64 // the sort's own order, smallest first; zero for the address sort
	kind  int      // rankOfKind
	name  int      // the address's place by naturalKey, then by the address itself
}

func (a *sortKey) compare(b *sortKey) int {
	if c := cmp.Compare(a.group, b.group); c != 0 {
		return c
	}
	for i := range a.by {
		if c := cmp.Compare(a.by[i], b.by[i]); c != 0 {
			return c
		}
	}
	if c := cmp.Compare(a.kind, b.kind); c != 0 {
		return c
	}
	return cmp.Compare(a.name, b.name)
}

// packed is k in one integer that orders as compare does, if its
// parts are small enough: the address, status and severity sorts' keys
// are, up to 4,096 hosts and 2^28 addresses.
func (k *sortKey) packed() (uint64, bool) {
	small := func(v int64, bits uint) bool { return v >= 0 && v < 1<<bits }
	if !small(int64(k.group), 12) || !small(k.by[0], 8) || !small(k.by[1], 8) || k.by[2] != 0 ||
		!small(int64(k.kind), 4) || !small(int64(k.name), nameBits) {
		return 0, false
	}
	return uint64(k.group)<<52 | uint64(k.by[0])<<44 | uint64(k.by[1])<<36 | uint64(k.kind)<<nameBits | uint64(k.name), true
}

// nameBits are a packed key's lowest, the name's.
const nameBits = 28

// keyFor is o's key under sort s, t its tally (the world's, which has
// its shown status and health already); the rtt sort orders by where
// rtt placed the object.
func keyFor(s sortMode, o *Object, t *tally, rtt *rttOrder, name int) sortKey {
	k := sortKey{kind: rankOfKind(o.Kind), name: name}
	switch s {
	case sortByStatus:
		k.by[0] = int64(statusRank(t.status))
	case sortByLastEvent: // most recent first
		k.by[0], k.by[1] = -o.LastEventAt.Unix(), -int64(o.LastEventAt.Nanosecond())
	case sortByReconnects:
		k.by[0] = -int64(o.Reconnects)
	case sortByRTT:
		k.by[0] = -int64(rtt.placed[o.Address])
	case sortBySeverity:
		k.by[0], k.by[1] = int64(t.health), int64(statusRank(t.status))
	}
	return k
}

// naturalKey is s made comparable byte by byte as naturalCompare
// compares it: each run of digits becomes '0', its length without
// leading zeros in two bytes, then those digits. A run still compares
// with any other byte as its first digit would ('0' to '9' are
// together), and with another run by length, then digit by digit.
func naturalKey(s string) string {
	if !strings.ContainsAny(s, "0123456789") {
		return s
	}
	b := make([]byte, 0, len(s)+8)
	for s != "" {
		n := digitRun(s)
		if n == 0 {
			b = append(b, s[0])
			s = s[1:]
			continue
		}
		num := strings.TrimLeft(s[:n], "0")
		l := min(len(num), 0xffff)
		b = append(b, '0', byte(l>>8), byte(l))
		b = append(b, num...)
		s = s[n:]
	}
	return string(b)
}
