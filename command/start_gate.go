package command

import "sync"

// startGate holds back starting an agent until the command knows whether
// it may: the first open decides, later ones are ignored.
type startGate struct {
	once sync.Once
	done chan struct{}
	ok   bool
}

func newStartGate() *startGate { return &startGate{done: make(chan struct{})} }

// open lets an agent be started (ok) or not; only the first call counts.
func (g *startGate) open(ok bool) {
	g.once.Do(func() {
		g.ok = ok
		close(g.done)
	})
}

// mayStart waits for open and returns its answer.
func (g *startGate) mayStart() bool {
	<-g.done
	return g.ok
}
