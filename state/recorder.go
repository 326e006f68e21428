package state

import (
	"errors"
	"sync"
)

// Recorder persists completed changes one by one. Record returns once the
// change is durable: after a crash the next RefreshState sees it. Record is
// safe for concurrent use, and concurrent callers share one flush (group
// commit), so apply's parallel workers should each call Record as they
// complete. Submit lets a single goroutine pipeline changes the same way.
type Recorder interface {
	// Record persists c and returns when it is durable.
	Record(c Change) error
	// Submit queues c and returns at once; the Pending says when it is
	// durable. Changes become durable in Submit order.
	Submit(c Change) *Pending
	// Close waits for queued changes, folds them into the state proper
	// (one write, serial incremented once) and ends the journal.
	Close() error
}

// Pending is a submitted change not yet known to be durable.
type Pending struct {
	done chan struct{}
	err  error
}

// Wait blocks until the change is durable, or failed to be.
func (p *Pending) Wait() error { <-p.done; return p.err }

// Done is closed when the change is durable or has failed.
func (p *Pending) Done() <-chan struct{} { return p.done }

// ErrRecorderClosed is returned for changes submitted after Close.
var ErrRecorderClosed = errors.New("state: recorder is closed")

// groupCommit queues changes and has one goroutine flush everything queued
// so far as a batch, so that N concurrent changes cost one flush.
type groupCommit struct {
	flush func([]Change) error

	mu      sync.Mutex
	wake    *sync.Cond
	queue   []Change
	waiters []*Pending
	closed  bool
	err     error // sticky: after a failed flush, nothing more is accepted
	stopped chan struct{}
}

func newGroupCommit(flush func([]Change) error) *groupCommit {
	g := &groupCommit{flush: flush, stopped: make(chan struct{})}
	g.wake = sync.NewCond(&g.mu)
	go g.loop()
	return g
}

func (g *groupCommit) Submit(c Change) *Pending {
	p := &Pending{done: make(chan struct{})}
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.closed:
		p.err = ErrRecorderClosed
		close(p.done)
	case g.err != nil:
		p.err = g.err
		close(p.done)
	default:
		g.queue = append(g.queue, c)
		g.waiters = append(g.waiters, p)
		g.wake.Signal()
	}
	return p
}

func (g *groupCommit) Record(c Change) error { return g.Submit(c).Wait() }

func (g *groupCommit) loop() {
	defer close(g.stopped)
	g.mu.Lock()
	for {
		for len(g.queue) == 0 && !g.closed {
			g.wake.Wait()
		}
		if len(g.queue) == 0 {
			g.mu.Unlock()
			return
		}
		batch, waiters := g.queue, g.waiters
		g.queue, g.waiters = nil, nil
		failed := g.err
		g.mu.Unlock()
		err := failed
		if err == nil {
			err = g.flush(batch)
		}
		g.mu.Lock()
		if err != nil && g.err == nil {
			g.err = err
		}
		for _, w := range waiters {
			w.err = err
			close(w.done)
		}
	}
}

// stop waits for everything queued to be flushed and returns the first
// flush error.
func (g *groupCommit) stop() error {
	g.mu.Lock()
	g.closed = true
	g.wake.Signal()
	g.mu.Unlock()
	<-g.stopped
	return g.err
}
