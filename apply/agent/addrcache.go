package agent

import (
	"context"
	"errors"
	"sync"
	"syscall"
	"time"

	"github.com/rdmaform/rdmaform/rdmacm"
)

// aiTTL is how long a resolved address is reused. A numeric address
// resolves the same way for ever, but a host name may move, and a device
// or its address may go and come back (errors of those drop an entry at
// once: see staleAddrError).
const aiTTL = time.Minute

// aiCache resolves where to listen or connect (rdma_getaddrinfo) and
// keeps the result for aiTTL: endpoints toward one listener share one.
// Callers of one key wait for one resolution; callers of other keys do not
// wait for it (rdma_getaddrinfo is thread-safe: it calls getaddrinfo, and
// ucma_init and its ibacm exchange take librdmacm's own locks, in
// rdma-core's librdmacm/addrinfo.c and acm.c). An entry dropped while in
// use is freed when its last user releases it.
type aiCache struct {
	resolve func(aiKey) (*rdmacm.AddrInfo, error)
	now     func() time.Time

	mu      sync.Mutex
	entries map[aiKey]*aiEntry
}

type aiEntry struct {
	ready chan struct{} // closed once ai or err is set
	ai    *rdmacm.AddrInfo
	err   error
	at    time.Time
	users int  // callers holding ai (or waiting for it)
	stale bool // dropped from entries: freed once users is 0
}

func newAICache(resolve func(aiKey) (*rdmacm.AddrInfo, error)) *aiCache {
	return &aiCache{resolve: resolve, now: time.Now, entries: make(map[aiKey]*aiEntry)}
}

// get returns k's address info, resolving it when it is not cached or has
// expired, and release, to call once the caller no longer uses it.
func (c *aiCache) get(ctx context.Context, k aiKey) (ai *rdmacm.AddrInfo, release func(), err error) {
	c.mu.Lock()
	e := c.entries[k]
	if e != nil && isReady(e) && c.now().Sub(e.at) > aiTTL {
		c.dropLocked(k, e)
		e = nil
	}
	if e == nil {
		e = &aiEntry{ready: make(chan struct{}), users: 1}
		c.entries[k] = e
		c.mu.Unlock()
		ai, err := c.resolve(k)
		c.mu.Lock()
		e.ai, e.err, e.at = ai, err, c.now()
		if err != nil && c.entries[k] == e {
			delete(c.entries, k) // a failure is for its waiters only
			e.stale = true
		}
		close(e.ready)
		c.mu.Unlock()
	} else {
		e.users++
		c.mu.Unlock()
		select {
		case <-e.ready:
		case <-ctx.Done():
			c.release(e)
			return nil, func() {}, ctx.Err()
		}
	}
	if e.err != nil {
		c.release(e)
		return nil, func() {}, e.err
	}
	var once sync.Once
	return e.ai, func() { once.Do(func() { c.release(e) }) }, nil
}

func isReady(e *aiEntry) bool {
	select {
	case <-e.ready:
		return true
	default:
		return false
	}
}

func (c *aiCache) release(e *aiEntry) {
	c.mu.Lock()
	e.users--
	free := e.stale && e.users == 0 && isReady(e) && e.ai != nil
	c.mu.Unlock()
	if free {
		e.ai.Close()
	}
}

// dropLocked removes e, the entry of k, freeing its result now if no one
// uses it, else when its last user releases it.
func (c *aiCache) dropLocked(k aiKey, e *aiEntry) {
	delete(c.entries, k)
	e.stale = true
	if e.users == 0 && isReady(e) && e.ai != nil {
		e.ai.Close()
	}
}

// forget drops k's entry: the next get resolves it again.
func (c *aiCache) forget(k aiKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.entries[k]; e != nil {
		c.dropLocked(k, e)
	}
}

// forgetAll drops every entry (a device went away, or the agent stops).
func (c *aiCache) forgetAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, e := range c.entries {
		c.dropLocked(k, e)
	}
}

// staleAddrError reports whether err, from making an id with a cached
// address info, may come from the address info itself being out of date:
// the device or the address is gone, or the route changed.
func staleAddrError(err error) bool {
	return errors.Is(err, syscall.ENODEV) || errors.Is(err, syscall.EADDRNOTAVAIL) ||
		errors.Is(err, syscall.ENETUNREACH) || errors.Is(err, syscall.EHOSTUNREACH)
}
