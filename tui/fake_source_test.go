package tui

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
)

// errRefused is what the fake says while the agent is away.
var errRefused = errors.New("dial unix /run/rdmaform/agent.sock: connect: connection refused")

// fakeSource is an agent the test drives: it holds objects, sends them as
// a snapshot on each Watch, forwards the test's updates, and can drop the
// connection and refuse new ones.
type fakeSource struct {
	mu      sync.Mutex
	objects map[string]Object
	order   []string

	updates chan Update
	drop    chan error // ends the current Watch with this error
	refuse  atomic.Bool
	watches atomic.Int32
}

var _ Source = (*fakeSource)(nil)

func newFakeSource(objs []Object) *fakeSource {
	f := &fakeSource{objects: make(map[string]Object), updates: make(chan Update), drop: make(chan error)}
	for _, o := range objs {
		f.objects[o.Address] = o
		f.order = append(f.order, o.Address)
	}
	return f
}

func (f *fakeSource) Watch(ctx context.Context, snapshot func([]Object, AgentInfo), update func(Update)) error {
	f.watches.Add(1)
	if f.refuse.Load() {
		return errRefused
	}
	snapshot(f.snapshot(), fixtureAgent)
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-f.drop:
			return err
		case u := <-f.updates:
			update(u)
		}
	}
}

func (f *fakeSource) snapshot() []Object {
	f.mu.Lock()
	defer f.mu.Unlock()
	objs := make([]Object, 0, len(f.order))
	for _, a := range f.order {
		if o, ok := f.objects[a]; ok {
			objs = append(objs, o)
		}
	}
	return objs
}

// set changes an object while no Watch is connected, so the next snapshot
// carries it.
func (f *fakeSource) set(o Object) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.objects[o.Address]; !ok {
		f.order = append(f.order, o.Address)
	}
	f.objects[o.Address] = o
}

// send delivers an update to the connected Watch and records it for later
// snapshots; it blocks until a Watch takes it.
func (f *fakeSource) send(u Update) {
	f.mu.Lock()
	if u.Deleted {
		delete(f.objects, u.Object.Address)
		f.order = slices.DeleteFunc(f.order, func(a string) bool { return a == u.Object.Address })
	} else {
		if _, ok := f.objects[u.Object.Address]; !ok {
			f.order = append(f.order, u.Object.Address)
		}
		f.objects[u.Object.Address] = u.Object
	}
	f.mu.Unlock()
	f.updates <- u
}
