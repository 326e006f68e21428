package tui

import (
	"context"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// feedMsg carries everything the relay gathered since the previous frame.
type feedMsg struct {
	// snapshot, when set, replaces every object the monitor knows; updates
	// apply after it.
	snapshot *snapshot
	updates  []Update
	link     linkState
	host     string // the host whose relay sent it, in a fabric
}

type snapshot struct {
	objects []Object
	agent   AgentInfo
}

// linkState is the relay's connection to the source as the screen shows it.
type linkState struct {
	up  bool
	err error // why the last Watch ended; nil before the first failure
	// cause is why the last Watch that got a snapshot ended, kept while
	// later ones fail to connect: the agent stopped, or went away.
	cause   error
	retryAt time.Time // when the relay calls Watch again, while down
	// downAt is when the link went down: a stale view's clocks (how
	// long each connection has been up) stop there.
	downAt time.Time
}

// relay is the one goroutine between a Source and the program. It keeps
// only the latest state of each object between two frames, so its memory is
// bounded by the number of objects whatever the event rate, and the program
// collects from it with a re-armed command (next), so the screen never
// waits on the network.
type relay struct {
	src        Source
	host       string // the host it watches, in a fabric (see hosts.go)
	minBackoff time.Duration
	maxBackoff time.Duration
	frame      time.Duration    // the shortest interval between two feedMsgs
	now        func() time.Time // the screen's clock, for the retry time it shows

	ctx    context.Context
	cancel context.CancelFunc
	start  sync.Once
	done   chan struct{}

	ready    chan struct{} // holds a token while something is pending
	lastSent time.Time     // only next touches it, and next never runs twice at once

	mu      sync.Mutex
	pending map[string]Update
	snap    *snapshot
	link    linkState
}

func newRelay(src Source, minBackoff, maxBackoff, frame time.Duration, now func() time.Time) *relay {
	ctx, cancel := context.WithCancel(context.Background())
	return &relay{
		src:        src,
		minBackoff: minBackoff,
		maxBackoff: maxBackoff,
		frame:      frame,
		now:        now,
		ctx:        ctx,
		cancel:     cancel,
		done:       make(chan struct{}),
		ready:      make(chan struct{}, 1),
		pending:    make(map[string]Update),
	}
}

// run starts the relay goroutine once.
func (r *relay) run() {
	r.start.Do(func() { go r.loop() })
}

// stop cancels the source and waits for the relay goroutine to end. It is
// safe to call more than once, and before run.
func (r *relay) stop() {
	r.cancel()
	r.start.Do(func() { close(r.done) }) // never started: nothing to wait for
	<-r.done
}

func (r *relay) loop() {
	defer close(r.done)
	backoff := r.minBackoff
	for {
		connected := false
		err := r.src.Watch(r.ctx,
			func(objs []Object, agent AgentInfo) {
				connected = true
				r.gotSnapshot(objs, agent)
			},
			r.gotUpdate)
		if r.ctx.Err() != nil {
			return
		}
		if connected {
			backoff = r.minBackoff // it worked for a while: retry promptly
		}
		r.setDown(err, connected, r.now().Add(backoff))
		t := time.NewTimer(backoff)
		select {
		case <-r.ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		backoff = min(backoff*2, r.maxBackoff)
	}
}

func (r *relay) gotSnapshot(objs []Object, agent AgentInfo) {
	for i := range objs { // the monitor keeps objs (see Source)
		objs[i] = safeObject(objs[i])
	}
	agent = safeAgent(agent)
	r.mu.Lock()
	r.snap = &snapshot{objects: objs, agent: agent}
	clear(r.pending) // older than the snapshot
	r.link = linkState{up: true}
	r.mu.Unlock()
	r.signal()
}

func (r *relay) gotUpdate(u Update) {
	u.Object = safeObject(u.Object)
	r.mu.Lock()
	r.pending[u.Object.Address] = u
	r.mu.Unlock()
	r.signal()
}

// setDown records that Watch ended with err; connected says it had got a
// snapshot, so err is why the link went down.
func (r *relay) setDown(err error, connected bool, retryAt time.Time) {
	r.mu.Lock()
	downAt, cause := r.link.downAt, r.link.cause
	if r.link.up || downAt.IsZero() {
		downAt = r.now()
	}
	if connected {
		cause = err
	}
	r.link = linkState{err: err, cause: cause, retryAt: retryAt, downAt: downAt}
	r.mu.Unlock()
	r.signal()
}

func (r *relay) signal() {
	select {
	case r.ready <- struct{}{}:
	default: // a token is already waiting
	}
}

// next is the command that brings the relay's gatherings into the program.
// The model re-arms it after each feedMsg; it returns nil (no message) once
// the relay is stopped.
func (r *relay) next() tea.Msg {
	select {
	case <-r.ready:
	case <-r.ctx.Done():
		return nil
	}
	// Let a burst accumulate so the program gets at most one batch a frame.
	if wait := time.Until(r.lastSent.Add(r.frame)); wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-r.ctx.Done():
			t.Stop()
			return nil
		}
	}
	r.lastSent = time.Now()
	return r.take()
}

// take empties what is pending into a feedMsg.
func (r *relay) take() feedMsg {
	r.mu.Lock()
	defer r.mu.Unlock()
	msg := feedMsg{snapshot: r.snap, link: r.link, host: r.host}
	if len(r.pending) > 0 {
		msg.updates = make([]Update, 0, len(r.pending))
		for _, u := range r.pending {
			msg.updates = append(msg.updates, u)
		}
		clear(r.pending)
	}
	r.snap = nil
	return msg
}

// pendingLen reports how many objects have changes waiting for a frame.
func (r *relay) pendingLen() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.pending)
}
