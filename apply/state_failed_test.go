package apply

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/state"
)

// brokenRecorder records the first n changes, then fails every one, as a
// state backend that went away.
type brokenRecorder struct {
	state.Recorder
	mu sync.Mutex
	n  int
}

func (r *brokenRecorder) Record(c state.Change) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n == 0 {
		return errors.New("etcd: context deadline exceeded")
	}
	r.n--
	return r.Recorder.Record(c)
}

// Once the state cannot record a change, the walk starts nothing more:
// each operation left would make what the state cannot hold. The object
// whose completion was not recorded is said to be recorded as being made.
func TestStateFailureStopsTheWalk(t *testing.T) {
	e := newEnv(t)
	cfg := load(t, loopback)
	if err := e.m.RefreshState(); err != nil {
		t.Fatal(err)
	}
	p, diags := planner.Make(context.Background(), cfg, nil, planner.Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	rec, err := e.m.OpenRecorder()
	if err != nil {
		t.Fatal(err)
	}
	// The protection domain, the listener and one endpoint made (the
	// making of all five is submitted before the walk), then nothing.
	broken := &brokenRecorder{Recorder: rec, n: 3}
	n := 0
	r := Apply(context.Background(), p, Options{Fabric: e.fabric, Recorder: broken, Config: cfg, Parallelism: 1, Progress: e.out,
		NewToken: func() string { n++; return fmt.Sprintf("tok%d", n) }})
	rec.Close()
	if !errors.Is(r.StateFailed, ErrStateFailed) || len(r.Errors) != 1 || len(r.NotStarted) == 0 {
		t.Fatalf("report %+v", r)
	}
	if msg := r.Errors[0].Error(); !strings.Contains(msg, "it records the object as being made, which the next plan adopts from the agent") || !strings.Contains(msg, "etcd: context deadline exceeded") {
		t.Errorf("error: %s", msg)
	}
	if n := e.fabric.endpointCreates(); n != 2 {
		t.Errorf("%d endpoints asked for, want 2 (the second's record failed):\n%s", n, strings.Join(e.fabric.calls, "\n"))
	}
}
