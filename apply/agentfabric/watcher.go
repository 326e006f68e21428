package agentfabric

import (
	"context"
	"sync"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
)

// watcher reads the agent's change stream and hands each object's latest
// state to whoever waits for that address. A subscriber's channel holds
// one object; a newer state replaces an unread older one.
type watcher struct {
	cancel context.CancelFunc

	mu     sync.Mutex
	subs   map[string]chan *pb.Object
	failed error
}

// startWatcher opens the stream and returns once the snapshot has arrived,
// so that a subscriber registered afterwards misses no change.
func startWatcher(ctx context.Context, agent pb.AgentClient) (*watcher, error) {
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	// Only endpoints (not the connections a listener accepts, one for
	// each endpoint connected to it), and only as they settle: apply
	// waits for established or failed, not for the steps on the way,
	// which would cost the agent and this process a copy each. An older
	// agent ignores the filter and sends everything.
	stream, err := agent.Watch(wctx, &pb.WatchRequest{Filter: &pb.Filter{Kinds: []pb.Kind{pb.Kind_ENDPOINT}, Statuses: settledStatuses}})
	if err != nil {
		cancel()
		return nil, err
	}
	if _, err := stream.Recv(); err != nil {
		cancel()
		return nil, err
	}
	w := &watcher{cancel: cancel, subs: map[string]chan *pb.Object{}}
	go func() {
		for {
			msg, err := stream.Recv()
			if err != nil {
				w.stop(err)
				return
			}
			for _, ch := range msg.Changes {
				if ch.Object != nil && !ch.Deleted {
					w.deliver(ch.Object)
				}
			}
		}
	}()
	return w, nil
}

// settledStatuses are those an endpoint being created can end its wait
// in (see established and failed).
var settledStatuses = []pb.Status{
	pb.Status_ESTABLISHED, pb.Status_DEGRADED,
	pb.Status_ERROR, pb.Status_REJECTED, pb.Status_RECONNECTING, pb.Status_DISCONNECTED,
}

func (w *watcher) subscribe(address string) <-chan *pb.Object {
	w.mu.Lock()
	defer w.mu.Unlock()
	ch := make(chan *pb.Object, 1)
	if w.failed != nil {
		close(ch)
		return ch
	}
	w.subs[address] = ch
	return ch
}

func (w *watcher) unsubscribe(address string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.subs, address)
}

func (w *watcher) deliver(o *pb.Object) {
	w.mu.Lock()
	defer w.mu.Unlock()
	ch := w.subs[o.Address]
	if ch == nil {
		return
	}
	select {
	case <-ch: // drop the unread older state
	default:
	}
	ch <- o
}

func (w *watcher) stop(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.failed = err
	for a, ch := range w.subs {
		close(ch)
		delete(w.subs, a)
	}
}

func (w *watcher) err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.failed
}
