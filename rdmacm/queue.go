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

func (q *queue[T]) put(v T) {
	q.mu.Lock()
	q.items = append(q.items, v)
	q.mu.Unlock()
	q.signal()
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

func (q *queue[T]) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	select {
	case <-q.closed:
	default:
		close(q.closed)
	}
}
