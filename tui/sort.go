package tui

import (
	"cmp"
	"strings"
)

// sortMode is the table's order; `s` cycles through them.
type sortMode int

const (
	sortByAddress    sortMode = iota // kind, then address with numbers in numeric order
	sortByStatus                     // worst first
	sortByLastEvent                  // most recent first
	sortByReconnects                 // most first
	sortByRTT                        // slowest mean round trip first, without jitter: see rttOrder
	sortBySeverity                   // worst health first: see healthOf
	sortModeCount
)

func (s sortMode) String() string {
	return [...]string{"address", "status", "last event", "reconnects", "rtt", "severity"}[s]
}

func (s sortMode) next() sortMode { return (s + 1) % sortModeCount }

// compare orders two objects by the mode; ties fall back to the address so
// that the order is total and rows do not jump between frames. The table
// orders sortByRTT with rttOrder, which remembers where rows were placed;
// here it is by the current round trips.
func (s sortMode) compare(a, b *Object) int {
	var c int
	switch s {
	case sortByStatus:
		c = cmp.Compare(statusRank(shownStatus(a)), statusRank(shownStatus(b)))
	case sortByLastEvent:
		c = b.LastEventAt.Compare(a.LastEventAt)
	case sortByReconnects:
		c = cmp.Compare(b.Reconnects, a.Reconnects)
	case sortByRTT:
		c = cmp.Compare(sortRTT(b), sortRTT(a))
	case sortBySeverity:
		c = cmp.Compare(healthOf(a), healthOf(b))
		if c == 0 {
			c = cmp.Compare(statusRank(shownStatus(a)), statusRank(shownStatus(b)))
		}
	}
	if c != 0 {
		return c
	}
	return compareAddress(a, b)
}

func compareAddress(a, b *Object) int {
	if c := cmp.Compare(rankOfKind(a.Kind), rankOfKind(b.Kind)); c != 0 {
		return c
	}
	return naturalCompare(a.Address, b.Address)
}

// rankOfKind orders kinds: protection domains, listeners, endpoints,
// connections, then any other. A switch, not a map: every key of a batch
// asks.
func rankOfKind(k string) int {
	switch k {
	case KindProtectionDomain:
		return 0
	case KindListener:
		return 1
	case KindEndpoint:
		return 2
	case KindConnection:
		return 3
	}
	return 4
}

// naturalCompare compares strings with runs of digits compared as numbers,
// so endpoint.c[2] comes before endpoint.c[10].
func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digitRun(a), digitRun(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if c := cmp.Compare(len(na), len(nb)); c != 0 {
				return c
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

func digitRun(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}
