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

// A fabric's hosts are watched each on its own Watch stream, by status
// -watch (hostWatcher) and by the monitor (hostSource) alike, under a
// heartbeat: the agent is asked for its Info every heartbeat interval,
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

// watchHost relays c's watch (req) to each, one message at a time, until
// the stream fails, each returns false, or the heartbeat finds the host
// silent, and says why in a user's words (hostError); ctx.Err() once ctx
// ends.
func watchHost(ctx context.Context, c *client.Client, beat heartbeat, req *pb.WatchRequest, each func(*pb.WatchResponse) bool) error {
	sctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var last atomic.Int64 // the last time the agent said something
	last.Store(time.Now().UnixNano())
	go beatOn(sctx, c, beat, &last, cancel)
	stream, err := c.Watch(sctx, req)
	for err == nil {
		var msg *pb.WatchResponse
		if msg, err = stream.Recv(); err != nil {
			break
		}
		last.Store(time.Now().UnixNano())
		if !each(msg) {
			return ctx.Err()
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
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
func beatOn(ctx context.Context, c *client.Client, beat heartbeat, last *atomic.Int64, stop context.CancelCauseFunc) {
	t := time.NewTicker(beat.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		due := time.Unix(0, last.Load()).Add(beat.Bound)
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
			stop(&silentHostError{beat.Bound})
			return
		}
		// Another error (the connection closed) ends the stream too, which
		// says it in its own words.
	}
}
