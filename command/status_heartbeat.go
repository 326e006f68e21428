package command

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/apply/agent/client"
)

// A watched host's agent is asked for its Info every heartbeat interval,
// each answer due within bound of the last thing it said (a watch message
// or an Info answer). A host powered off sends no FIN or RST: its packets
// vanish, the watch stream just falls silent (as it does when nothing
// changes), and TCP would notice only after minutes of retransmissions.
// The heartbeat's bound is what notices it within two seconds.

// heartbeat is the timing of a watched host's heartbeat.
type heartbeat struct {
	Interval time.Duration // between Info calls
	Bound    time.Duration // the longest silence before the host is unreachable
	Retry    time.Duration // between attempts to reach an unreachable host
}

var defaultHeartbeat = heartbeat{Interval: 500 * time.Millisecond, Bound: 2 * time.Second, Retry: time.Second}

// silentHostError is a host whose agent said nothing within the
// heartbeat's bound.
type silentHostError struct{ bound time.Duration }

func (e *silentHostError) Error() string {
	return fmt.Sprintf("no answer within %s (the heartbeat's bound): the host may be down or cut off", e.bound)
}

// hostEvent is what a host's watcher reports: a snapshot of its objects
// (when it answers, again), their changes, or why it stopped answering.
type hostEvent struct {
	host     string
	snapshot []*pb.Object
	changes  []*pb.Change
	isSnap   bool
	down     error
}

// hostWatcher keeps watching one host: its Watch stream under a
// heartbeat; when the host stops answering, it says why and tries again
// every Retry until it answers.
type hostWatcher struct {
	host   *statusHost
	names  client.Names
	beat   heartbeat
	events chan<- hostEvent
}

// run watches until ctx ends, starting with c (nil: dial first).
func (w *hostWatcher) run(ctx context.Context, c *client.Client) {
	for ctx.Err() == nil {
		if c == nil {
			dctx, cancel := context.WithTimeout(ctx, agentTimeout)
			var err error
			c, err = w.host.dial(dctx)
			cancel()
			if err != nil {
				if !w.send(ctx, hostEvent{down: err}) || !w.wait(ctx) {
					return
				}
				continue
			}
		}
		err := w.stream(ctx, c)
		c.Close()
		c = nil
		if ctx.Err() != nil || !w.send(ctx, hostEvent{down: err}) || !w.wait(ctx) {
			return
		}
	}
}

func (w *hostWatcher) send(ctx context.Context, ev hostEvent) bool {
	ev.host = w.host.Key
	select {
	case w.events <- ev:
		return true
	case <-ctx.Done():
		return false
	}
}

func (w *hostWatcher) wait(ctx context.Context) bool {
	t := time.NewTimer(w.beat.Retry)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// stream relays c's watch until it fails or the heartbeat finds the host
// silent, and says why.
func (w *hostWatcher) stream(ctx context.Context, c *client.Client) error {
	sctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var last atomic.Int64 // the last time the agent said something
	last.Store(time.Now().UnixNano())
	go w.beatOn(sctx, c, &last, cancel)
	stream, err := c.Watch(sctx, &pb.WatchRequest{})
	for err == nil {
		var msg *pb.WatchResponse
		if msg, err = stream.Recv(); err != nil {
			break
		}
		last.Store(time.Now().UnixNano())
		ev := hostEvent{isSnap: msg.Snapshot}
		if msg.Snapshot {
			for _, o := range msg.Objects {
				ev.snapshot = append(ev.snapshot, w.names.Shown(o))
			}
		}
		for _, ch := range msg.Changes {
			ev.changes = append(ev.changes, &pb.Change{Object: w.names.Shown(ch.Object), Deleted: ch.Deleted})
		}
		if !w.send(ctx, ev) {
			return ctx.Err()
		}
	}
	if cause := context.Cause(sctx); errors.As(cause, new(*silentHostError)) {
		return cause
	}
	if err == nil {
		err = errors.New("the agent ended its watch")
	}
	return hostError(err)
}

// beatOn asks c's agent for its Info every interval, each within bound
// of the last answer; when one does not come, it ends the stream with a
// silentHostError.
func (w *hostWatcher) beatOn(ctx context.Context, c *client.Client, last *atomic.Int64, stop context.CancelCauseFunc) {
	t := time.NewTicker(w.beat.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		due := time.Unix(0, last.Load()).Add(w.beat.Bound)
		hctx, cancel := context.WithDeadline(ctx, due)
		_, err := c.Info(hctx, &pb.InfoRequest{})
		expired := hctx.Err() == context.DeadlineExceeded
		cancel()
		switch {
		case ctx.Err() != nil:
			return
		case err == nil:
			last.Store(time.Now().UnixNano())
		case expired:
			stop(&silentHostError{w.beat.Bound})
			return
		}
		// Another error (the connection closed) ends the stream too, which
		// says it in its own words.
	}
}
