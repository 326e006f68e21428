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
	// which and what the first held: its objects went with it. It is kept
	// until they are back or restartNews has passed.
	restart *agentRestart
	now     func() time.Time
	link    linkState
	// version changes whenever objects do, so the table knows to rebuild.
	version uint64
}

// restartNews is how long the restart banner stays while objects of the
// old agent are still missing: plan and apply may make them again only
// partly, or not at all, and the header's pid says the rest.
const restartNews = 30 * time.Second

func newWorld(now func() time.Time) *world {
	if now == nil {
		now = time.Now
	}
	return &world{objects: make(map[string]*Object), now: now}
}

// apply takes in one batch from the relay.
func (w *world) apply(f feedMsg) {
	w.link = f.link
	if f.snapshot != nil {
		if a, b := w.agent, f.snapshot.agent; w.synced && a.PID != 0 && (a.PID != b.PID || !a.StartedAt.Equal(b.StartedAt)) {
			w.restart = &agentRestart{from: a.PID, to: b.PID, lost: managedAddresses(w.objects), at: w.now()}
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
	if w.restart != nil && w.restart.missing(w.objects) == 0 {
		w.restart = nil // every lost object is made again: the news is old
	}
}

// restartShown is the restart to tell of, if any: none once restartNews
// has passed since it was seen.
func (w *world) restartShown(now time.Time) *agentRestart {
	if r := w.restart; r != nil && now.Sub(r.at) < restartNews {
		return r
	}
	return nil
}

// managedAddresses lists the objects plan and apply make: not the
// connections listeners accept.
func managedAddresses(objects map[string]*Object) []string {
	var addrs []string
	for a, o := range objects {
		if o.Kind != KindConnection {
			addrs = append(addrs, a)
		}
	}
	return addrs
}

// agentRestart is a change of agent seen while monitoring.
type agentRestart struct {
	from, to int       // the agents' pids
	lost     []string  // the objects shown from the old one that plan makes
	at       time.Time // when the new agent was seen
}

// missing counts the lost objects the new agent does not hold (yet).
func (r *agentRestart) missing(objects map[string]*Object) int {
	n := 0
	for _, a := range r.lost {
		if _, ok := objects[a]; !ok {
			n++
		}
	}
	return n
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
