package agent

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
)

// registry maps configuration addresses to the objects the agent holds,
// with the create token that made each, so that a retried create finds its
// object instead of making a second one.
type registry struct {
	mu      sync.RWMutex
	objects map[string]*object
	// sorted is every object by address, rebuilt after a change; it is
	// replaced, never modified, so callers may keep it.
	sorted []*object
	dirty  bool
}

func newRegistry() *registry { return &registry{objects: make(map[string]*object)} }

// errExists is a create for an address already held under another token or
// as another kind.
type errExists struct {
	Address, Kind string
}

func (e *errExists) Error() string {
	article := "a"
	if e.Kind != "" && strings.ContainsRune("aeiou", rune(e.Kind[0])) {
		article = "an"
	}
	return fmt.Sprintf("%s already exists (%s %s made by another create request): delete it first, or update it in place", e.Address, article, e.Kind)
}

// claim returns the object at addr if token made it (created = false), or
// registers the one made by newObject (created = true).
func (r *registry) claim(addr, token string, kind pb.Kind, newObject func() *object) (o *object, created bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if old, ok := r.objects[addr]; ok {
		if old.kind != kind || old.token != token || token == "" {
			return nil, false, &errExists{Address: addr, Kind: kindName(old.kind)}
		}
		return old, false, nil
	}
	o = newObject()
	r.objects[addr] = o
	r.dirty = true
	return o, true, nil
}

// add registers an object the agent made itself (an accepted connection).
func (r *registry) add(o *object) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.objects[o.address] = o
	r.dirty = true
}

func (r *registry) get(addr string) *object {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.objects[addr]
}

// remove drops o if it is still the object at its address.
func (r *registry) remove(o *object) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.objects[o.address] != o {
		return false
	}
	delete(r.objects, o.address)
	r.dirty = true
	return true
}

// all returns every object, sorted by address. The slice is shared: do
// not modify it.
func (r *registry) all() []*object {
	r.mu.RLock()
	if !r.dirty {
		defer r.mu.RUnlock()
		return r.sorted
	}
	r.mu.RUnlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.dirty {
		out := make([]*object, 0, len(r.objects))
		for _, o := range r.objects {
			out = append(out, o)
		}
		slices.SortFunc(out, func(a, b *object) int { return strings.Compare(a.address, b.address) })
		r.sorted, r.dirty = out, false
	}
	return r.sorted
}

// users lists the listeners and endpoints that use the protection domain
// at pdAddr.
func (r *registry) users(pdAddr string) []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []string
	for _, o := range r.objects {
		if o.pdAddress == pdAddr && o.kind != pb.Kind_PROTECTION_DOMAIN {
			out = append(out, o.address)
		}
	}
	sort.Strings(out)
	return out
}

func (r *registry) len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.objects)
}

func kindName(k pb.Kind) string {
	return strings.ToLower(strings.ReplaceAll(k.String(), "_", " "))
}

// connectionName is how the agent names an accepted connection: its
// listener's name, "/conn/" and a number. An address a client declares
// ends otherwise (in "]", a name, "@namespace" or "#suffix"), whatever its
// for_each key holds ("/" included).
var connectionName = regexp.MustCompile(`/conn/[0-9]+$`)

// checkAddress refuses addresses a client may not create: empty ones and
// those of accepted connections, which the agent names itself.
func checkAddress(addr string) error {
	if addr == "" {
		return fmt.Errorf("an object needs an address, such as endpoint.client[0]")
	}
	if connectionName.MatchString(addr) {
		return fmt.Errorf("address %q: names ending in \"/conn/N\" are the accepted connections the agent names", addr)
	}
	return nil
}
