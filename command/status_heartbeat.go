package command

import (
	"context"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/apply/agent/client"
)

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
	return watchHost(ctx, c, w.beat, &pb.WatchRequest{}, func(msg *pb.WatchResponse) bool {
		ev := hostEvent{isSnap: msg.Snapshot}
		if msg.Snapshot {
			for _, o := range msg.Objects {
				ev.snapshot = append(ev.snapshot, w.names.Shown(o))
			}
		}
		for _, ch := range msg.Changes {
			ev.changes = append(ev.changes, &pb.Change{Object: w.names.Shown(ch.Object), Deleted: ch.Deleted})
		}
		return w.send(ctx, ev)
	})
}
