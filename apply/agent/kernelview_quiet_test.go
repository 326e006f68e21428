package agent

import (
	"context"
	"testing"
	"time"
)

// quietScript is a clock and a status change count for kernelQuiet: each
// wait of quiet passes at once, and in each of the first busy waits a
// status changes.
type quietScript struct {
	busy, waits int
	clock       time.Time
}

func (s *quietScript) kernelQuiet(quiet, limit time.Duration) kernelQuiet {
	return kernelQuiet{
		changes: func() uint64 { return uint64(min(s.waits, s.busy)) },
		after: func(d time.Duration) <-chan time.Time {
			s.waits++
			s.clock = s.clock.Add(d)
			c := make(chan time.Time, 1)
			c <- s.clock
			return c
		},
		now:   func() time.Time { return s.clock },
		quiet: quiet, limit: limit,
	}
}

func TestKernelCheckWaitsForObjectsToStandStill(t *testing.T) {
	for _, tc := range []struct {
		name        string
		busy, waits int
	}{
		{"nothing changing: one quiet second", 0, 1},
		{"changes for 3 s: a check after the first quiet second", 3, 4},
		{"changes without end: a check after the limit", 1000, 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &quietScript{busy: tc.busy, clock: time.Unix(1e9, 0)}
			if !s.kernelQuiet(time.Second, 30*time.Second).wait(context.Background()) {
				t.Fatal("wait gave up without its context ending")
			}
			if s.waits != tc.waits {
				t.Errorf("checked after %d quiet periods, want %d", s.waits, tc.waits)
			}
		})
	}
}

func TestKernelCheckWaitEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	q := kernelQuiet{changes: func() uint64 { return 0 }, after: func(time.Duration) <-chan time.Time { return nil },
		now: time.Now, quiet: time.Second, limit: time.Minute}
	if q.wait(ctx) {
		t.Error("wait reported a quiet moment after its context ended")
	}
}

// The count the wait watches moves with objects' status, not with every
// change (probe statistics change every second on a healthy fabric).
func TestStatusChangesCountOnlyStatusAndDeletion(t *testing.T) {
	a := New(nil)
	defer a.Close()
	o := &object{agent: a, address: "endpoint.e", kind: 0}
	before := a.statusChanges.Load()
	o.change(func(s *state) { s.lastEvent = "probe" })
	if got := a.statusChanges.Load(); got != before {
		t.Errorf("a change without a new status counted: %d -> %d", before, got)
	}
	o.change(func(s *state) { s.status = s.status + 1 })
	o.markDeleted()
	if got := a.statusChanges.Load(); got != before+2 {
		t.Errorf("a status change and a deletion counted %d, want 2", got-before)
	}
}
