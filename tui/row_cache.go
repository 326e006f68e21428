package tui

import (
	"slices"
	"time"
)

// rowCache keeps the lines of the rows on screen as last rendered, so
// that a frame renders again only the rows that changed: a row's line
// depends on nothing but what its look holds.
type rowCache struct {
	lines map[string]cachedLine // by address

	// The column layout, computed again only when the width or the
	// widest cells change.
	cols   []column
	width  int
	widest []int
	layout uint64 // counts the layouts, to tell lines of an older one
}

type cachedLine struct {
	look rowLook
	line string
}

// rowLook is everything a row's line is made of: the row (its object,
// which is never changed once shown, its peer and place), the layout,
// how it is highlighted and its cells that follow the clock.
type rowLook struct {
	r                       row
	layout                  uint64
	selected, focused, kept bool
	clock                   [2]string // UP and LAST EVENT's age: see rowClock
}

// rowClock is what the row's cells show of the time: how long it has
// been up and how long ago its last event was, to the second. The other
// cells do not read the clock.
func rowClock(r row, now time.Time) [2]string {
	var c [2]string
	if !r.obj.ConnectedSince.IsZero() {
		c[0] = span(now.Sub(r.obj.ConnectedSince))
	}
	if _, at := shownEvent(r.obj); !at.IsZero() {
		c[1] = span(now.Sub(at))
	}
	return c
}

// columns is the layout for width and the widest cells.
func (c *rowCache) columns(width int, widest []int) []column {
	if c.cols == nil || c.width != width || !slices.Equal(c.widest, widest) {
		c.cols, c.width, c.widest = layoutColumns(width, widest), width, slices.Clone(widest)
		c.layout++
	}
	return c.cols
}

// line is the row's line for look, rendered by render when the last one
// was of another look.
func (c *rowCache) line(look rowLook, render func() string) string {
	if c.lines == nil {
		c.lines = make(map[string]cachedLine)
	}
	a := look.r.obj.Address
	if l, ok := c.lines[a]; ok && l.look == look {
		return l.line
	}
	line := render()
	c.lines[a] = cachedLine{look: look, line: line}
	return line
}

// forget drops the lines of rows no longer on screen, keeping those of
// keep, once the cache holds more than a few screens.
func (c *rowCache) forget(keep []row) {
	if len(c.lines) <= 4*len(keep)+64 {
		return
	}
	on := make(map[string]cachedLine, len(keep))
	for _, r := range keep {
		if l, ok := c.lines[r.obj.Address]; ok {
			on[r.obj.Address] = l
		}
	}
	c.lines = on
}
