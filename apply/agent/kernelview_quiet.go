package agent

import (
	"context"
	"time"
)

// kernelQuiet holds a periodic kernel check back while objects are
// changing status, for at most limit. During an apply or a destroy of
// thousands, a check would judge few objects (one that changes during the
// kernel's read is judged next time) and take the CPU they need: the read
// is a netlink dump of every cm_id and QP of the process, about 1.5 s of
// CPU at 6,000 ids in the Soft-RoCE VM. A fabric whose objects never stand
// still is still checked, once limit has passed.
type kernelQuiet struct {
	changes func() uint64 // the count of status changes so far
	after   func(time.Duration) <-chan time.Time
	now     func() time.Time
	// quiet is how long no status may change before a check; limit is
	// the longest a check waits for that.
	quiet, limit time.Duration
}

// wait returns once no status changed for q.quiet, or q.limit has passed;
// false if ctx ended first.
func (q kernelQuiet) wait(ctx context.Context) bool {
	deadline := q.now().Add(q.limit)
	for {
		seen := q.changes()
		select {
		case <-ctx.Done():
			return false
		case <-q.after(q.quiet):
		}
		if q.changes() == seen || !q.now().Before(deadline) {
			return true
		}
	}
}
