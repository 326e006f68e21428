package tui

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
