package command

import (
	"bytes"
	"io"
	"sync"

	"github.com/rdmaform/rdmaform/planner"
	"github.com/rdmaform/rdmaform/planner/render"
)

// planText is the plan's human rendering, made while apply -auto-approve
// starts its walk: nobody reads the plan before it proceeds, and where a
// core is idle the rendering costs no time (the host's CLI benchmark of
// 1,000 endpoints: 87 -> 74 ms; in the 2-CPU VM, whose CPUs the agent
// fills, nothing is saved). The output is the same: the plan's bytes
// come first, and the progress lines wait for them (see progressBuffer).
type planText struct {
	done    chan struct{}
	buf     bytes.Buffer
	written sync.Once
}

func renderPlanText(p *planner.Plan, color bool) *planText {
	t := &planText{done: make(chan struct{})}
	go func() {
		defer close(t.done)
		render.Human(&t.buf, p, color)
	}()
	return t
}

// ready reports whether the rendering is done.
func (t *planText) ready() bool {
	select {
	case <-t.done:
		return true
	default:
		return false
	}
}

// writeTo waits for the rendering and writes it to w; only the first call
// writes. A nil planText writes nothing.
func (t *planText) writeTo(w io.Writer) {
	if t == nil {
		return
	}
	t.written.Do(func() {
		<-t.done
		w.Write(t.buf.Bytes())
	})
}
