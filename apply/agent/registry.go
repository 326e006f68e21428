package agent

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

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

// errFull is a create refused because the agent holds MaxObjects objects.
type errFull struct {
	Address string
	Held    int
}

func (e *errFull) Error() string {
	return fmt.Sprintf("%s: the agent holds %d objects, its limit (%d): delete some, or run another agent (-agent=PATH) for more", e.Address, e.Held, MaxObjects)
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
	if len(r.objects) >= MaxObjects {
		return nil, false, &errFull{Address: addr, Held: len(r.objects)}
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

// checkAddress refuses addresses a client may not create: empty ones,
// those of accepted connections, which the agent names itself, and those
// that would surprise where names are shown or matched (checkName).
func checkAddress(addr string) error {
	if addr == "" {
		return fmt.Errorf("an object needs an address, such as endpoint.client[0]")
	}
	if err := checkName(addr); err != nil {
		return err
	}
	if connectionName.MatchString(addr) {
		return fmt.Errorf("address %q: names ending in \"/conn/N\" are the accepted connections the agent names", addr)
	}
	return nil
}

// checkName refuses a name the configuration would not have made (see
// config's instance key rules): over MaxNameBytes, not UTF-8, with a
// character that is not printable (a control character or NUL would
// reach terminals and logs as it is), starting with "/" or with a ".."
// between slashes (prefix filters and connection names split at "/").
func checkName(name string) error {
	switch {
	case len(name) > MaxNameBytes:
		return fmt.Errorf("the name %.40q... is %d bytes long, over the agent's limit of %d", name, len(name), MaxNameBytes)
	case !utf8.ValidString(name):
		return fmt.Errorf("the name %q is not valid UTF-8", name)
	case strings.HasPrefix(name, "/"):
		return fmt.Errorf("the name %q starts with \"/\": names are configuration addresses, such as endpoint.client[0]", name)
	}
	for _, r := range name {
		if !unicode.IsPrint(r) {
			return fmt.Errorf("the name %q holds the character %U, which is not printable", name, r)
		}
	}
	if slices.Contains(strings.Split(name, "/"), "..") {
		return fmt.Errorf("the name %q holds \"..\" between slashes", name)
	}
	return nil
}
