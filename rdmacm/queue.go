//go:build linux && cgo

package rdmacm

import (
	"context"
	"sync"
)

// queue hands items from the event loops to one waiting goroutine without
// bound, so a loop never blocks on a slow reader. An id receives few events
// (a handful per connection) and at most as many completions as it posted
// work requests; a listener's queue is its backlog of requests.
type queue[T any] struct {
	mu     sync.Mutex
	items  []T
	ready  chan struct{} // holds a token while items is non-empty
	closed chan struct{}
}

func newQueue[T any]() *queue[T] {
	return &queue[T]{ready: make(chan struct{}, 1), closed: make(chan struct{})}
}

// put queues v, unless the queue is closed: then it reports false and the
// caller disposes of v.
func (q *queue[T]) put(v T) bool {
	q.mu.Lock()
	select {
	case <-q.closed:
		q.mu.Unlock()
		return false
	default:
	}
	q.items = append(q.items, v)
	q.mu.Unlock()
	q.signal()
	return true
}

func (q *queue[T]) signal() {
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// tryNext takes the oldest item, if there is one, without waiting.
func (q *queue[T]) tryNext() (T, bool) {
	var zero T
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.items) == 0 {
		return zero, false
	}
	v := q.items[0]
	q.items[0] = zero
	q.items = q.items[1:]
	return v, true
}

// next waits for the oldest item.
func (q *queue[T]) next(ctx context.Context) (T, error) {
	var zero T
	for {
		q.mu.Lock()
		if len(q.items) > 0 {
			v := q.items[0]
			q.items[0] = zero
			q.items = q.items[1:]
			more := len(q.items) > 0
			q.mu.Unlock()
			if more {
				q.signal()
			}
			return v, nil
		}
		q.mu.Unlock()
		select {
		case <-q.ready:
		case <-q.closed:
			return zero, ErrClosed
		case <-ctx.Done():
			return zero, ctx.Err()
		}
	}
}

// seal refuses later puts but leaves what is queued to be taken: the waits
// end with ErrClosed once it is. A later close returns nothing.
func (q *queue[T]) seal() {
	q.mu.Lock()
	defer q.mu.Unlock()
	select {
	case <-q.closed:
	default:
		close(q.closed)
	}
}

// close ends every wait and returns the items nobody took, once: a later
// put is refused, so none is left behind.
func (q *queue[T]) close() []T {
	q.mu.Lock()
	defer q.mu.Unlock()
	select {
	case <-q.closed:
		return nil
	default:
		close(q.closed)
	}
	left := q.items
	q.items = nil
	return left
}
