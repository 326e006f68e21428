package agent

import (
	"sync"
	"sync/atomic"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
)

// hub fans changes out to watchers. Publishing never blocks: each watcher
// has its own queue, and past a bound the queue keeps only the latest
// change of each object (it coalesces per object), so a slow reader costs
// memory proportional to the number of objects, never the event rate.
type hub struct {
	mu   sync.Mutex                    // serialises subscribe and unsubscribe
	subs atomic.Pointer[[]*subscriber] // replaced, never modified: read without the lock on every change
}

func newHub() *hub { return &hub{} }

func (h *hub) list() []*subscriber {
	if p := h.subs.Load(); p != nil {
		return *p
	}
	return nil
}

// active reports whether anyone watches, so that changes nobody reads cost
// no copies.
func (h *hub) active() bool { return len(h.list()) > 0 }

// wants reports whether a watcher's filter matches the object, so that a
// change only filtered-out watchers would see costs no copy either.
func (h *hub) wants(addr string, kind pb.Kind, status pb.Status) bool {
	for _, s := range h.list() {
		if s.filter.match(addr, kind) && s.filter.matchStatus(status) {
			return true
		}
	}
	return false
}

func (h *hub) publish(c *pb.Change) {
	for _, s := range h.list() {
		s.put(c)
	}
}

// subscribe adds a watcher of the objects f matches.
func (h *hub) subscribe(limit int, f filter) *subscriber {
	s := &subscriber{limit: limit, filter: f, latest: make(map[string]int), ready: make(chan struct{}, 1)}
	h.mu.Lock()
	defer h.mu.Unlock()
	subs := append(append([]*subscriber(nil), h.list()...), s)
	h.subs.Store(&subs)
	return s
}

func (h *hub) unsubscribe(s *subscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var subs []*subscriber
	for _, o := range h.list() {
		if o != s {
			subs = append(subs, o)
		}
	}
	h.subs.Store(&subs)
}

// subscriber is one watcher's queue.
type subscriber struct {
	mu        sync.Mutex
	limit     int
	filter    filter // fixed at subscribe
	queue     []*pb.Change
	latest    map[string]int // address -> index in queue of its latest change
	ready     chan struct{}  // holds a token while queue is non-empty
	coalesced uint64         // changes replaced by a later one
}

func (s *subscriber) put(c *pb.Change) {
	addr := c.GetObject().GetAddress()
	if !s.filter.match(addr, c.GetObject().GetKind()) || !c.Deleted && !s.filter.matchStatus(c.GetObject().GetStatus()) {
		return
	}
	s.mu.Lock()
	if i, ok := s.latest[addr]; ok && len(s.queue) >= s.limit {
		// Over the bound: the object's newest queued change is replaced by
		// this one. Its order relative to the object's earlier changes is
		// kept, since the replaced change was the latest of them.
		s.queue[i] = c
		s.coalesced++
	} else {
		s.latest[addr] = len(s.queue)
		s.queue = append(s.queue, c)
	}
	s.mu.Unlock()
	select {
	case s.ready <- struct{}{}:
	default:
	}
}

// take empties the queue, oldest change first.
func (s *subscriber) take() []*pb.Change {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queue
	s.queue = nil
	clear(s.latest)
	return q
}

// coalescedCount is how many changes this watcher never saw because a later
// change of the same object replaced them.
func (s *subscriber) coalescedCount() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.coalesced
}
