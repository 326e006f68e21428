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

// statusRank ranks statuses worst first, for the status sort and the
// totals; a status the monitor does not know ranks last. A switch, not a
// map: every changed object is ranked, and a batch may change them all.
func statusRank(s string) int {
	switch s {
	case StatusError:
		return 0
	case StatusRejected:
		return 1
	case StatusDisconnected:
		return 2
	case StatusReconnecting:
		return 3
	case StatusDegraded:
		return 4
	case StatusConnecting:
		return 5
	case StatusCreating:
		return 6
	case StatusListening:
		return 7
	case StatusEstablished:
		return 8
	}
	return 9
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

// healthyStatus: nothing to look at.
func healthyStatus(s string) bool {
	switch s {
	case StatusEstablished, StatusListening, StatusReady, "created":
		return true
	}
	return false
}

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
	if healthyStatus(o.Status) && !o.hostDown {
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
