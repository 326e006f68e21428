//go:build linux && cgo

package rdmacm

import "sync"

// registry maps the integer keys stored in rdma_cm_id.context to Go ids, so
// C memory never holds a Go pointer and an event for an id that is being
// closed finds nothing instead of a stale handle.
type registry struct {
	mu   sync.Mutex
	next uintptr
	ids  map[uintptr]*ID
}

var ids = registry{ids: make(map[uintptr]*ID)}

func (r *registry) add(id *ID) uintptr {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next++
	r.ids[r.next] = id
	return r.next
}

func (r *registry) get(key uintptr) *ID {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ids[key]
}

func (r *registry) remove(key uintptr) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.ids, key)
}

// LiveIDs is the number of live ids in this process, for leak checks.
func LiveIDs() int {
	ids.mu.Lock()
	defer ids.mu.Unlock()
	return len(ids.ids)
}

// all is every live id, in no order.
func (r *registry) all() []*ID {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*ID, 0, len(r.ids))
	for _, id := range r.ids {
		out = append(out, id)
	}
	return out
}
