package main

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
}

func newProgressBuffer(w io.Writer) *progressBuffer { return &progressBuffer{w: w} }

func (b *progressBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	switch {
	case len(b.buf) >= 64<<10:
		b.flushLocked()
	case b.timer == nil:
		b.timer = time.AfterFunc(progressDelay, b.Flush)
	}
	return len(p), nil
}

// Flush writes out what is buffered.
func (b *progressBuffer) Flush() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.flushLocked()
}

func (b *progressBuffer) flushLocked() {
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	if len(b.buf) > 0 {
		b.w.Write(b.buf)
		b.buf = b.buf[:0]
	}
}
