package command

import (
	"io"
	"sync"
	"time"
)

// progressDelay is how long a progress line may wait in the buffer: short
// enough to read as live, long enough that a thousand objects' lines go
// out in a few dozen writes rather than two thousand.
const progressDelay = 50 * time.Millisecond

// progressBuffer gathers apply's progress lines and writes them to w at
// most progressDelay after the first one of a batch, or when Flush is
// called. Every line reports a change the state already holds, so a
// delayed line never reports more than is durable.
type progressBuffer struct {
	mu    sync.Mutex
	w     io.Writer
	buf   []byte
	timer *time.Timer
	// head, until written, goes before every line: the plan being
	// rendered while the walk starts.
	head *planText
}

func newProgressBuffer(w io.Writer) *progressBuffer { return &progressBuffer{w: w} }

// after makes the buffer write head before its first line; lines wait
// for it (Flush waits for it).
func (b *progressBuffer) after(head *planText) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.head = head
}

func (b *progressBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	switch {
	case len(b.buf) >= 64<<10:
		b.flushLocked(false)
	case b.timer == nil:
		b.timer = time.AfterFunc(progressDelay, b.flushLater)
	}
	return len(p), nil
}

// Flush writes out what is buffered, after the head once it is rendered.
func (b *progressBuffer) Flush() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.flushLocked(true)
}

// flushLater is the timer's flush: it does not wait for the head.
func (b *progressBuffer) flushLater() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.flushLocked(false)
}

func (b *progressBuffer) flushLocked(waitHead bool) {
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	if b.head != nil {
		if !waitHead && !b.head.ready() {
			b.timer = time.AfterFunc(progressDelay, b.flushLater)
			return
		}
		b.head.writeTo(b.w)
		b.head = nil
	}
	if len(b.buf) > 0 {
		b.w.Write(b.buf)
		b.buf = b.buf[:0]
	}
}
