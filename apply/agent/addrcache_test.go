package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/rdmacm"
)

// fakeResolver resolves keys on demand: a key whose gate is set waits
// until the gate is closed. It counts resolutions per node.
type fakeResolver struct {
	mu     sync.Mutex
	gates  map[string]chan struct{}
	calls  map[string]int
	failed map[string]error
	called chan string
}

func newFakeResolver() *fakeResolver {
	return &fakeResolver{gates: map[string]chan struct{}{}, calls: map[string]int{}, failed: map[string]error{}, called: make(chan string, 100)}
}

func (f *fakeResolver) resolve(k aiKey) (*rdmacm.AddrInfo, error) {
	f.mu.Lock()
	f.calls[k.node]++
	gate, err := f.gates[k.node], f.failed[k.node]
	f.mu.Unlock()
	f.called <- k.node
	if gate != nil {
		<-gate
	}
	if err != nil {
		return nil, err
	}
	return &rdmacm.AddrInfo{Node: k.node}, nil
}

func (f *fakeResolver) count(node string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[node]
}

// A slow lookup of one name holds up only the callers of that name: the
// others resolve and return while it still waits, and the callers of the
// slow name share its one resolution.
func TestSlowLookupBlocksOnlyItsOwnAddress(t *testing.T) {
	f := newFakeResolver()
	slow := make(chan struct{})
	f.gates["slow.example"] = slow
	c := newAICache(f.resolve)
	ctx := context.Background()

	slowDone := make(chan error, 2)
	for range 2 {
		go func() {
			ai, release, err := c.get(ctx, aiKey{node: "slow.example", port: 1})
			if err == nil && ai.Node != "slow.example" {
				err = fmt.Errorf("got %s", ai.Node)
			}
			release()
			slowDone <- err
		}()
	}
	<-f.called // the slow lookup has begun
	for i := range 3 {
		node := fmt.Sprintf("10.0.0.%d", i)
		done := make(chan error, 1)
		go func() {
			ai, release, err := c.get(ctx, aiKey{node: node, port: 1})
			if err == nil && ai.Node != node {
				err = fmt.Errorf("got %s", ai.Node)
			}
			release()
			done <- err
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-slowDone:
			t.Fatal("the slow lookup returned before its gate opened")
		case <-time.After(time.Minute):
			t.Fatalf("%s waited behind the slow lookup", node)
		}
	}
	close(slow)
	for range 2 {
		if err := <-slowDone; err != nil {
			t.Fatal(err)
		}
	}
	if n := f.count("slow.example"); n != 1 {
		t.Errorf("the slow name was resolved %d times, want once for both callers", n)
	}
	// Cached now.
	_, release, _ := c.get(ctx, aiKey{node: "slow.example", port: 1})
	release()
	if n := f.count("slow.example"); n != 1 {
		t.Errorf("a cached name was resolved again (%d)", n)
	}
}

// A caller waiting for another's lookup gives up when its context ends.
func TestWaitingForALookupEndsWithTheContext(t *testing.T) {
	f := newFakeResolver()
	gate := make(chan struct{})
	defer close(gate)
	f.gates["slow.example"] = gate
	c := newAICache(f.resolve)
	go c.get(context.Background(), aiKey{node: "slow.example"})
	<-f.called
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := c.get(ctx, aiKey{node: "slow.example"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("get = %v", err)
	}
}

// Entries expire after aiTTL; forget and forgetAll drop them at once; a
// failure is not cached.
func TestResolvedAddressesExpireAndAreForgotten(t *testing.T) {
	f := newFakeResolver()
	c := newAICache(f.resolve)
	now := time.Unix(1000, 0)
	c.now = func() time.Time { return now }
	ctx := context.Background()
	k := aiKey{node: "host.example", port: 7471}
	get := func() {
		t.Helper()
		_, release, err := c.get(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		release()
	}
	get()
	now = now.Add(aiTTL - time.Second)
	get()
	if n := f.count(k.node); n != 1 {
		t.Fatalf("resolved %d times within the TTL", n)
	}
	now = now.Add(2 * time.Second)
	get()
	if n := f.count(k.node); n != 2 {
		t.Fatalf("resolved %d times after the TTL, want 2", n)
	}
	c.forget(k)
	get()
	c.forgetAll()
	get()
	if n := f.count(k.node); n != 4 {
		t.Fatalf("resolved %d times after forget and forgetAll, want 4", n)
	}
	f.failed["bad.example"] = &rdmacm.AddrInfoError{Code: -2, Node: "bad.example"}
	for range 2 {
		if _, _, err := c.get(ctx, aiKey{node: "bad.example"}); err == nil {
			t.Fatal("no error")
		}
	}
	if n := f.count("bad.example"); n != 2 {
		t.Errorf("a failed lookup was cached (%d lookups for 2 gets)", n)
	}
}

// An entry in use is dropped from the cache (the next get resolves
// again); its user keeps it until release, which may be called twice.
func TestForgetAllDropsEntriesInUse(t *testing.T) {
	f := newFakeResolver()
	c := newAICache(f.resolve)
	k := aiKey{node: "10.0.0.1"}
	ai, release, err := c.get(context.Background(), k)
	if err != nil {
		t.Fatal(err)
	}
	c.forgetAll()
	if got := c.entries[k]; got != nil {
		t.Fatal("still cached")
	}
	if ai.Node != "10.0.0.1" {
		t.Fatalf("ai %+v", ai)
	}
	release()
	release() // idempotent
}

func TestStaleAddrErrors(t *testing.T) {
	for _, err := range []error{syscall.ENODEV, fmt.Errorf("x: %w", syscall.EADDRNOTAVAIL), syscall.ENETUNREACH} {
		if !staleAddrError(err) {
			t.Errorf("%v is not taken for a stale address", err)
		}
	}
	if staleAddrError(syscall.ECONNREFUSED) || staleAddrError(nil) {
		t.Error("ECONNREFUSED or nil taken for a stale address")
	}
}
