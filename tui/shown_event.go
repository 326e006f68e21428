package tui

import (
	"time"
	"unicode"
)

// shownEvent is the event the LAST EVENT column shows: the object's last
// event, except for an endpoint between connections (reconnecting, or
// connecting again), whose last event is the agent's own word
// ("reconnecting", "connecting") most of the time: the STATUS column says
// as much, so the column shows the last RDMA CM event instead (REJECTED,
// UNREACHABLE, DISCONNECTED), which says why.
func shownEvent(o *Object) (string, time.Time) {
	if o.Status != StatusReconnecting && !(o.Status == StatusConnecting && o.Reconnects > 0) {
		return o.LastEvent, o.LastEventAt
	}
	for i := len(o.History) - 1; i >= 0; i-- {
		if h := o.History[i]; cmEvent(h.Name) {
			return h.Name, h.At
		}
	}
	return o.LastEvent, o.LastEventAt
}

// cmEvent reports whether name is an RDMA CM event's (upper case, as
// rdma_event_str names them) rather than one of the agent's words.
func cmEvent(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		if unicode.IsLower(r) {
			return false
		}
	}
	return true
}
