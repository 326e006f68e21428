package apply

import (
	"context"
	"errors"
	"sync"
	"testing"
)

type testGraph [][]int

func (g testGraph) Len() int         { return len(g) }
func (g testGraph) Deps(i int) []int { return g[i] }

func TestWalkOrdersAndSkipsDependentsOfFailures(t *testing.T) {
	// 0 <- 1 <- 2, 0 <- 3; 4 alone; 1 fails.
	g := testGraph{nil, {0}, {1}, {0}, nil}
	var mu sync.Mutex
	var order []int
	res := Walk(context.Background(), g, func(i int) error {
		mu.Lock()
		order = append(order, i)
		mu.Unlock()
		if i == 1 {
			return errors.New("boom")
		}
		return nil
	})
	pos := map[int]int{}
	for i, n := range order {
		pos[n] = i
	}
	if _, ran := pos[2]; ran {
		t.Fatal("node 2 ran although its dependency failed")
	}
	if pos[0] > pos[1] || pos[0] > pos[3] {
		t.Fatalf("order %v", order)
	}
	want := []Outcome{Done, Failed, Skipped, Done, Done}
	for i, w := range want {
		if res[i].Outcome != w {
			t.Fatalf("node %d: outcome %v, want %v", i, res[i].Outcome, w)
		}
	}
	if res[2].Cause != 1 {
		t.Fatalf("node 2 cause %d, want 1", res[2].Cause)
	}
}

func TestWalkSkipCausePassesThroughSkippedNodes(t *testing.T) {
	g := testGraph{nil, {0}, {1}, {2}}
	res := Walk(context.Background(), g, func(i int) error {
		if i == 0 {
			return errors.New("boom")
		}
		return nil
	})
	for i := 1; i < 4; i++ {
		if res[i].Outcome != Skipped || res[i].Cause != 0 {
			t.Fatalf("node %d: %+v", i, res[i])
		}
	}
}

func TestWalkStopsStartingWhenCancelled(t *testing.T) {
	g := testGraph{nil, {0}, {1}, nil}
	ctx, cancel := context.WithCancel(context.Background())
	release := make(chan struct{})
	res := make(chan []Result)
	go func() {
		res <- Walk(ctx, g, func(i int) error {
			if i == 0 {
				cancel()
				<-release // in flight while the walk is stopped
			}
			if i == 3 {
				<-release
			}
			return nil
		})
	}()
	close(release)
	r := <-res
	if r[0].Outcome != Done {
		t.Fatalf("in-flight node 0: %v", r[0].Outcome)
	}
	if r[1].Outcome != NotStarted || r[2].Outcome != NotStarted {
		t.Fatalf("nodes 1,2: %v %v", r[1].Outcome, r[2].Outcome)
	}
}

func TestWalkNotStartedFromVisit(t *testing.T) {
	g := testGraph{nil, {0}}
	r := Walk(context.Background(), g, func(i int) error { return ErrNotStarted })
	if r[0].Outcome != NotStarted || r[1].Outcome != NotStarted {
		t.Fatalf("%+v", r)
	}
}
