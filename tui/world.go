package tui

import (
	"slices"
	"time"
)

// world is everything the monitor knows: the objects the agent holds,
// those the configuration and state declare, merged into what the table
// shows, and the state of the link to the agent. The root model owns it
// and the panes read it.
type world struct {
	// What the panes show is each slot's shown object (object,
	// shownObjects): every object the agent holds, and a placeholder
	// (StatusMissing) for each declared one it does not; shownN counts
	// them. No map by address is kept besides slots: a batch that
	// changes every object would write each.
	shownN int
	// slots are each address's record (slot.go): a batch looks an
	// address up once there, then reads and keeps the rest through it.
	slots   map[string]*slot
	byIndex []*slot  // the slots by their index
	slab    []slot   // the chunk new slots are taken from
	free    []*slot  // released slots, to take for new addresses
	touched []uint64 // a bit per slot index: the slots the next merge takes
	// held is what the agent holds, or held when it went away (the last
	// picture, kept until an agent answers again): the addresses, each to
	// its slot, whose held is the object. It changes only as addresses
	// come and go, not with every change of an object.
	held     map[string]*slot
	declared map[string]*Declared
	// gone are the objects the agent deleted lately, kept for a while: an
	// agent that stops deletes everything before it goes, and the
	// monitor keeps its last picture rather than an empty table.
	gone map[string]goneObject
	// kept: the link is down and held is the last picture.
	kept bool
	// lastUpdate is when the agent last sent a change or a snapshot.
	lastUpdate time.Time
	// errors are the distinct last errors seen of each object, oldest
	// first, at most errorsKept.
	errors map[string][]ErrorInfo
	// peers maps each endpoint and accepted connection to the object at
	// the other end of its connection, where the monitor sees both.
	peers map[string]string
	// byEnds files endpoints and connections by their addresses, so
	// that a change matches again only the peers at its addresses.
	byEnds peerIndex
	// changed are the slots whose shown object or peer changed since
	// the table last took them (takeChanged), a slot maybe more than
	// once: a batch of changes costs the table its size, not the
	// fabric's. A list, not a set: a batch that changes every object
	// would pay a map insertion each. Those whose peer changed are
	// marked (slot.peerMoved): the table looks up only their peers again.
	changed []*slot
	// byStatus and problems are totals' counts, kept as objects change:
	// a few statuses, each with its count, looked up in order (a status
	// is most often one of the package's constants, which compare at
	// once).
	byStatus []statusCount
	problems int

	agent  AgentInfo
	synced bool // a snapshot has arrived at least once
	// restart, once another agent answered than the one first shown, says
	// which and what the first held: its objects went with it. It is kept
	// until they are back or restartNews has passed.
	restart *agentRestart
	now     func() time.Time
	link    linkState
	// version changes whenever objects do, so the table knows to rebuild.
	version uint64

	// hosts are a fabric's (see hosts.go), by name, in hostOrder; none
	// for the one agent.
	hosts     map[string]*hostView
	hostOrder []string
	hostRank  map[string]int
	// hostTotals are each host's counts, for its header (host_groups.go).
	hostTotals map[string]*hostTotal
}

// object is the object shown at address a, or nil.
func (w *world) object(a string) *Object {
	if s := w.slots[a]; s != nil {
		return s.shown
	}
	return nil
}

// shownObjects yields the objects shown, each with its address.
func (w *world) shownObjects(yield func(string, *Object) bool) {
	for _, s := range w.byIndex {
		if s != nil && s.shown != nil && !yield(s.addr, s.shown) {
			return
		}
	}
}

// goneObject is an object the agent deleted, and when.
type goneObject struct {
	obj *Object
	at  time.Time
}

// goneMemory is how long before the link went down a deletion may be
// and still be taken as part of the agent's stopping: the agent deletes
// everything within a second or two as it stops.
const goneMemory = 10 * time.Second

// errorsKept bounds the errors the describe view lists per object.
const errorsKept = 5

// restartNews is how long the restart banner stays while objects of the
// old agent are still missing: plan and apply may make them again only
// partly, or not at all, and the header's pid says the rest.
const restartNews = 30 * time.Second

func newWorld(now func() time.Time) *world {
	if now == nil {
		now = time.Now
	}
	return &world{
		slots: make(map[string]*slot), held: make(map[string]*slot), declared: make(map[string]*Declared),
		gone: make(map[string]goneObject), errors: make(map[string][]ErrorInfo),
		peers: make(map[string]string), byEnds: newPeerIndex(),
		now: now,
	}
}

// apply takes in one batch from the relay.
func (w *world) apply(f feedMsg) {
	if w.fabric() {
		w.applyHost(f)
		return
	}
	wasUp := w.link.up
	w.link = f.link
	now := w.now()
	if f.snapshot != nil {
		if a, b := w.agent, f.snapshot.agent; w.synced && a.PID != 0 && (a.PID != b.PID || !a.StartedAt.Equal(b.StartedAt)) {
			w.restart = &agentRestart{from: a.PID, to: b.PID, lost: managedAddresses(w.held), at: now}
		}
		for _, s := range w.byIndex {
			if s != nil && s.shown != nil {
				w.touch(s) // those the snapshot leaves out go
			}
		}
		for _, s := range w.held {
			s.held = nil
		}
		clear(w.held)
		clear(w.gone)
		for i := range f.snapshot.objects {
			o := &f.snapshot.objects[i]
			s := w.slotOf(o.Address)
			w.hold(s, o)
			w.observe(s, o, now)
			w.touch(s)
		}
		w.agent = f.snapshot.agent
		w.synced, w.kept = true, false
		w.lastUpdate = now
	}
	for i := range f.updates {
		u := &f.updates[i]
		s := w.slotOf(u.Object.Address)
		if u.Deleted {
			if o := s.held; o != nil {
				w.gone[o.Address] = goneObject{obj: o, at: now}
			}
			w.hold(s, nil)
		} else {
			w.hold(s, &u.Object)
			w.observe(s, &u.Object, now)
			w.lastUpdate = now
		}
		w.touch(s)
	}
	changed := f.snapshot != nil || len(f.updates) > 0
	if wasUp && !f.link.up && w.synced {
		w.keepLastPicture()
		changed = true
	}
	w.forgetGone(now)
	if changed {
		w.merge()
	}
	if w.restart != nil && countMissing(w.restart.lost, w.held) == 0 {
		w.restart = nil // every lost object is made again: the news is old
	}
}

// keepLastPicture puts back what the agent deleted just before the link
// went down: it stopped, and took its objects with it; the screen keeps
// showing them, dimmed, until an agent answers again. It touches the
// addresses put back.
func (w *world) keepLastPicture() {
	down := w.link.downAt
	if down.IsZero() {
		down = w.now()
	}
	for a, g := range w.gone {
		if _, ok := w.held[a]; !ok && !g.at.Before(down.Add(-goneMemory)) {
			s := w.slotOf(a)
			w.hold(s, g.obj)
			w.touch(s)
		}
	}
	clear(w.gone)
	w.kept = true
}

func (w *world) forgetGone(now time.Time) {
	for a, g := range w.gone {
		if now.Sub(g.at) > goneMemory {
			delete(w.gone, a)
		}
	}
}

// observe records what an object's new state adds to its history: a
// probe sample, a new error.
func (w *world) observe(s *slot, o *Object, now time.Time) {
	if p := o.Probe; p != nil && !p.Ended {
		h := s.hist
		if h == nil {
			h = &probeHistory{}
			s.hist = h
		}
		o.lossy = h.add(p, now)
		o.hist = h
	}
	if e := o.LastError; e != nil {
		errs := w.errors[o.Address]
		if n := len(errs); n == 0 || errs[n-1].Message != e.Message || !errs[n-1].At.Equal(e.At) || errs[n-1].Call != e.Call {
			if n == errorsKept {
				errs = append(errs[:0], errs[1:]...)
			}
			w.errors[o.Address] = append(errs, *e)
		}
	}
}

// setDeclared replaces what the configuration and state declare. Only
// the placeholders change: an object the agent holds is shown as it
// holds it.
func (w *world) setDeclared(ds []Declared) {
	for a := range w.declared {
		if _, ok := w.held[a]; !ok {
			w.touch(w.slotOf(a))
		}
	}
	clear(w.declared)
	for i := range ds {
		d := &ds[i]
		w.declared[d.Address] = d
		if _, ok := w.held[d.Address]; !ok {
			w.touch(w.slotOf(d.Address))
		}
	}
	w.merge()
}

// merge shows, for each address touched since the last merge, the
// object the agent holds there, or the placeholder of the one declared,
// or nothing, and matches the peers of those that changed. It goes
// through them in the order of their slots (see touch), and so does the
// table after it.
func (w *world) merge() {
	for s := range w.takeTouched {
		o := s.held
		if o == nil {
			if d, ok := w.declared[s.addr]; ok {
				o = w.placeholder(d)
			}
		}
		old := s.shown
		if o == old {
			continue
		}
		w.recount(s, o)
		switch {
		case old == nil:
			w.shownN++
		case o == nil:
			w.shownN--
		}
		s.shown = o
		w.changed = append(w.changed, s)
		// What the slot keeps of the old object (its tally, its filing)
		// tells what changed without reading it again.
		e, conn, ok := filing(o)
		if f := (filedAt{e, conn}); old == nil || o == nil || f != s.filing || ok != s.filed {
			w.byEnds.update(s.addr, o)
			s.filing, s.filed = f, ok
		}
	}
	w.byEnds.match(w.peers, func(a string) {
		s := w.slotOf(a)
		w.changed = append(w.changed, s)
		s.peerMoved = true
	})
	w.version++
}

// tally is how a shown object counts in the totals: its host, its
// shown status and its health, which the table's sorts read too.
type tally struct {
	host, status string
	health       health
}

func tallyOf(o *Object) tally {
	return tally{host: o.Host, status: shownStatus(o), health: healthOf(o)}
}

// statusCount is how many shown objects have a status.
type statusCount struct {
	status string
	n      int
}

// recount takes s's shown object (none: nil) out of the totals and puts
// o (nil: none) in, with no work where both count alike: most changes
// keep the status and the health.
func (w *world) recount(s *slot, o *Object) {
	var t tally
	if o != nil {
		t = tallyOf(o)
	}
	if s.shown != nil && o != nil && t == s.tally {
		return
	}
	if s.shown != nil {
		w.count(s.tally, -1)
	}
	if o != nil {
		w.count(t, 1)
	}
	s.tally = t
}

// count adds n of an object that counts as t to the totals.
func (w *world) count(t tally, n int) {
	i := slices.IndexFunc(w.byStatus, func(c statusCount) bool { return c.status == t.status })
	if i < 0 {
		i = len(w.byStatus)
		w.byStatus = append(w.byStatus, statusCount{status: t.status})
	}
	if w.byStatus[i].n += n; w.byStatus[i].n == 0 {
		w.byStatus = slices.Delete(w.byStatus, i, i+1)
	}
	unhealthy := t.health != healthOK
	if unhealthy {
		w.problems += n
	}
	if t.host != "" {
		if w.hostTotals == nil {
			w.hostTotals = make(map[string]*hostTotal)
		}
		h := w.hostTotals[t.host]
		if h == nil {
			h = &hostTotal{}
			w.hostTotals[t.host] = h
		}
		h.objects += n
		if unhealthy {
			h.problems += n
		}
	}
}

// takeChanged appends the slots changed since the last call to dst (a
// slot maybe more than once); those whose peer changed are marked
// (slot.peerMoved) until the caller clears the mark.
func (w *world) takeChanged(dst []*slot) []*slot {
	dst = append(dst, w.changed...)
	w.changed = w.changed[:0]
	return dst
}

// placeholder is the row of a declared object the agent does not hold,
// with the reason and, when known, the last error it had.
func (w *world) placeholder(d *Declared) *Object {
	o := &Object{Address: d.Address, Kind: d.Kind, Host: d.Host, Status: StatusMissing, LastError: d.LastError, hostRank: w.hostRank[d.Host]}
	if errs := w.errors[d.Address]; o.LastError == nil && len(errs) > 0 {
		o.LastError = &errs[len(errs)-1] // it failed while the monitor watched
	}
	o.LastEvent = missingReason(d, o.LastError)
	if d.Host != "" && w.hostDown(d.Host) {
		o.LastEvent = "host unreachable" // not known missing: its host does not say
		o.hostDown = true
	}
	return o
}

// missingReason says why a declared object is not held, in the LAST
// EVENT column's few words (the detail says more: see declaredLines):
// not created (the configuration declares it, the state does not: its
// create failed, or no apply made it), create pending (apply did not
// record the outcome), not held (removed) (only the state has it: the
// next plan destroys it), not held by agent (the agent lost it).
func missingReason(d *Declared, e *ErrorInfo) string {
	switch {
	case e != nil && e.ErrnoName != "":
		return "failed: " + e.Call + " " + e.ErrnoName
	case e != nil && e.Call != "":
		return "failed: " + e.Call
	case d.Pending:
		return "create pending"
	case !d.InState:
		return "not created"
	case !d.InConfig:
		return "not held (removed)"
	}
	return "not held by agent"
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
func managedAddresses(held map[string]*slot) []string {
	var addrs []string
	for a, s := range held {
		if s.held.Kind != KindConnection {
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
func (r *agentRestart) missing(w *world) int {
	n := 0
	for _, a := range r.lost {
		if w.object(a) == nil {
			n++
		}
	}
	return n
}

// countMissing counts the addresses of lost that m does not have.
func countMissing[V any](lost []string, m map[string]V) int {
	n := 0
	for _, a := range lost {
		if _, ok := m[a]; !ok {
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

// totals counts objects by shown status, and the problems: the objects
// that are not healthy.
func (w *world) totals() (map[string]int, int) {
	t := make(map[string]int, len(w.byStatus))
	for _, c := range w.byStatus {
		t[c.status] = c.n
	}
	return t, w.problems
}
