package tui

import "time"

// world is everything the monitor knows about the agent: its objects, keyed
// by address, and the state of the link to it. The root model owns it and
// the panes read it.
type world struct {
	objects map[string]*Object
	agent   AgentInfo
	synced  bool // a snapshot has arrived at least once
	// restart, once another agent answered than the one first shown, says
	// which and what the first held: its objects went with it.
	restart *agentRestart
	link    linkState
	// version changes whenever objects do, so the table knows to rebuild.
	version uint64
}

func newWorld() *world {
	return &world{objects: make(map[string]*Object)}
}

// apply takes in one batch from the relay.
func (w *world) apply(f feedMsg) {
	w.link = f.link
	if f.snapshot != nil {
		if a, b := w.agent, f.snapshot.agent; w.synced && a.PID != 0 && (a.PID != b.PID || !a.StartedAt.Equal(b.StartedAt)) {
			w.restart = &agentRestart{from: a.PID, to: b.PID, lost: managed(w.objects)}
		}
		clear(w.objects)
		for i := range f.snapshot.objects {
			o := &f.snapshot.objects[i]
			w.objects[o.Address] = o
		}
		w.agent = f.snapshot.agent
		w.synced = true
		w.version++
	}
	for i := range f.updates {
		u := &f.updates[i]
		if u.Deleted {
			delete(w.objects, u.Object.Address)
		} else {
			w.objects[u.Object.Address] = &u.Object
		}
	}
	if len(f.updates) > 0 {
		w.version++
	}
	if w.restart != nil && managed(w.objects) > 0 {
		w.restart = nil // made again (or others made): the news is old
	}
}

// managed counts the objects plan and apply make: not the connections
// listeners accept.
func managed(objects map[string]*Object) int {
	n := 0
	for _, o := range objects {
		if o.Kind != "connection" {
			n++
		}
	}
	return n
}

// agentRestart is a change of agent seen while monitoring.
type agentRestart struct {
	from, to int // the agents' pids
	lost     int // the objects shown from the old one that plan makes
}

// stale reports whether the view shows the last known state rather than a
// live one.
func (w *world) stale() bool { return w.synced && !w.link.up }

// at is the time the objects' clocks (up for, last event ago) read: now,
// or when the link went down for a stale view, whose connections may be
// gone since.
func (w *world) at(now time.Time) time.Time {
	if w.stale() && !w.link.downAt.IsZero() && w.link.downAt.Before(now) {
		return w.link.downAt
	}
	return now
}

// totals counts objects by shown status.
func (w *world) totals() map[string]int {
	t := make(map[string]int)
	for _, o := range w.objects {
		t[shownStatus(o)]++
	}
	return t
}
