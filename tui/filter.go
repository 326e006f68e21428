package tui

import "strings"

// matcher decides which objects a filter keeps: those whose address,
// device or last event contains the text, or whose status starts with it,
// ignoring case ("rej" finds a listener that "rejected a request").
//
// With unhealthy set (the `!` key), it keeps only the objects that are
// not healthy (see healthOf), and those the text matches among them.
type matcher struct {
	text      string // lower case; empty keeps everything
	unhealthy bool
}

func newMatcher(filter string, unhealthy bool) matcher {
	return matcher{text: strings.ToLower(strings.TrimSpace(filter)), unhealthy: unhealthy}
}

func (m matcher) all() bool { return m.text == "" && !m.unhealthy }

func (m matcher) match(o *Object) bool {
	if m.unhealthy && healthOf(o) == healthOK {
		return false
	}
	if m.text == "" {
		return true
	}
	return containsFold(o.Address, m.text) ||
		strings.HasPrefix(shownStatus(o), m.text) ||
		containsFold(device(o), m.text) ||
		containsFold(o.LastEvent, m.text) ||
		containsFold(shownName(o), m.text)
}

// shownName is the name of the event LAST EVENT shows (see shownEvent).
func shownName(o *Object) string {
	name, _ := shownEvent(o)
	return name
}

// containsFold is strings.Contains ignoring ASCII case, without allocating:
// the filter runs over every object on each change.
func containsFold(s, lowerSub string) bool {
	n := len(lowerSub)
	for i := 0; i+n <= len(s); i++ {
		if strings.EqualFold(s[i:i+n], lowerSub) {
			return true
		}
	}
	return false
}
