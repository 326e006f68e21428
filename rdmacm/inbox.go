//go:build linux && cgo

package rdmacm

import (
	"context"
	"sync"
)

// inbox queues an id's events without bound, so the channel's event loop
// never blocks on a slow reader. An id receives few events (a handful per
// connection), except a listener, whose queue is its backlog of requests.
type inbox struct {
	mu     sync.Mutex
	events []Event
	ready  chan struct{} // holds a token while events is non-empty
	closed chan struct{}
}

func newInbox() *inbox {
	return &inbox{ready: make(chan struct{}, 1), closed: make(chan struct{})}
}

func (b *inbox) put(e Event) {
	b.mu.Lock()
	b.events = append(b.events, e)
	b.mu.Unlock()
	select {
	case b.ready <- struct{}{}:
	default:
	}
}

// next waits for the oldest event.
func (b *inbox) next(ctx context.Context) (Event, error) {
	for {
		b.mu.Lock()
		if len(b.events) > 0 {
			e := b.events[0]
			b.events[0] = Event{}
			b.events = b.events[1:]
			more := len(b.events) > 0
			b.mu.Unlock()
			if more {
				select {
				case b.ready <- struct{}{}:
				default:
				}
			}
			return e, nil
		}
		b.mu.Unlock()
		select {
		case <-b.ready:
		case <-b.closed:
			return Event{}, ErrClosed
		case <-ctx.Done():
			return Event{}, ctx.Err()
		}
	}
}

func (b *inbox) close() {
	select {
	case <-b.closed:
	default:
		close(b.closed)
	}
}
