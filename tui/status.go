package tui

import "strings"

// Statuses the monitor knows how to colour and rank. An agent may report
// others; they sort last and are shown uncoloured.
const (
	StatusCreating     = "creating"
	StatusListening    = "listening"
	StatusConnecting   = "connecting"
	StatusEstablished  = "established"
	StatusDegraded     = "degraded"
	StatusDisconnected = "disconnected"
	StatusReconnecting = "reconnecting"
	StatusRejected     = "rejected"
	StatusError        = "error"
)

// severity ranks statuses worst first, for the status sort and the totals.
var severity = map[string]int{
	StatusError:        0,
	StatusRejected:     1,
	StatusDisconnected: 2,
	StatusReconnecting: 3,
	StatusDegraded:     4,
	StatusConnecting:   5,
	StatusCreating:     6,
	StatusListening:    7,
	StatusEstablished:  8,
}

func statusRank(s string) int {
	if r, ok := severity[s]; ok {
		return r
	}
	return len(severity)
}

// shownStatus is the status the monitor displays: an established
// connection whose probe the agent judged degraded is shown as degraded so
// that it stands out.
func shownStatus(o *Object) string {
	if o.Status == StatusEstablished && o.Probe != nil && o.Probe.Degraded {
		return StatusDegraded
	}
	return o.Status
}

// StatusMissing is the status the monitor gives an object the
// configuration or the state declares and the agent does not hold.
const StatusMissing = "missing"

// health ranks an object for the operator's first question, what is
// broken, worst first: the severity sort, the unhealthy filter (`!`), the
// problem count and the row colours all read it.
type health int

const (
	healthError        health = iota // failed, or declared and not held
	healthRejected                   // rejected, or a listener that rejected a request
	healthLostProbes                 // degraded, or probes lost lately
	healthDisconnected               // down, not retrying
	healthReconnecting               // down, retrying
	healthConnecting                 // on its way up
	healthUnknown                    // a status the monitor does not know, or a host that does not answer
	healthOK
)

// StatusReady is a protection domain allocated.
const StatusReady = "ready"

// healthy statuses: nothing to look at.
var healthyStatus = map[string]bool{StatusEstablished: true, StatusListening: true, StatusReady: true, "created": true}

// healthOf is o's rank. An endpoint reconnecting after a reject ranks as
// rejected: the reject is why, and what the operator must change.
func healthOf(o *Object) health {
	switch o.Status {
	case StatusMissing:
		if o.hostDown {
			return healthUnknown // its host does not say whether it holds it
		}
		return healthError
	case StatusError:
		return healthError
	case StatusRejected:
		return healthRejected
	}
	if name, _ := shownEvent(o); rejectEvent(name) && o.Status != StatusEstablished {
		return healthRejected
	}
	if o.lossy || o.Status == StatusDegraded || (o.Probe != nil && o.Probe.Degraded && !o.Probe.Ended) {
		return healthLostProbes
	}
	switch o.Status {
	case StatusDisconnected:
		return healthDisconnected
	case StatusReconnecting:
		return healthReconnecting
	case StatusConnecting, StatusCreating:
		return healthConnecting
	}
	if healthyStatus[o.Status] && !o.hostDown {
		return healthOK
	}
	return healthUnknown // also what was healthy on a host that does not answer
}

// rejectEvent reports whether an event is a reject: the CM's REJECTED, or
// a listener's "rejected a request".
func rejectEvent(name string) bool {
	return name == "REJECTED" || strings.HasPrefix(name, "rejected")
}

func (h health) String() string {
	return [...]string{"error", "rejected", "lost probes", "disconnected", "reconnecting", "connecting", "unknown", "healthy"}[h]
}
