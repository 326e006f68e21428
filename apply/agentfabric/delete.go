package agentfabric

import (
	"context"
	"sync"
	"time"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// deleter sends deletes issued concurrently in DeleteMany calls, up to
// maxDeleteCalls in flight, each carrying what was queued (at most
// maxDeleteBatch) once deletes stop coming or deleteLinger has passed.
// The agent disconnects a call's listeners and endpoints in parallel, so
// a destroy waits for a disconnect per call rather than per endpoint, and
// a call that carries few deletes does not hold up the others.
type deleter struct {
	mu      sync.Mutex
	queue   []*pendingDelete
	senders int
	// single: the agent does not implement DeleteMany; use Delete.
	single bool
}

type pendingDelete struct {
	address string
	done    chan struct{}
	err     error // a gRPC status error
}

// enqueue queues the delete of address for the next call; done is closed
// once err is set.
func (d *deleter) enqueue(ctx context.Context, agent pb.AgentClient, address string) *pendingDelete {
	p := &pendingDelete{address: address, done: make(chan struct{})}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.queue = append(d.queue, p)
	if d.senders < maxDeleteCalls {
		d.senders++
		go d.send(context.WithoutCancel(ctx), agent)
	}
	return p
}

const (
	// Measured in the VM: DeleteMany calls of 256 one after another
	// deleted 1,000 endpoints in 1.1 s; one call of 1,000 took 2.6-4 s
	// (the agent's disconnects do not scale to a thousand at once).
	maxDeleteBatch = 256
	maxDeleteCalls = 1
	// deleteLinger is how long a call waits for more deletes while they
	// keep coming (each within deleteGap of the last): a destroy queues a
	// thousand endpoints' deletes in a fraction of a second, and each call
	// lasts as long as its slowest disconnect.
	deleteLinger = 100 * time.Millisecond
	deleteGap    = 2 * time.Millisecond
)

// linger waits, at most deleteLinger, until no delete has been queued
// for deleteGap.
func (d *deleter) linger() {
	deadline := time.Now().Add(deleteLinger)
	d.mu.Lock()
	n := len(d.queue)
	d.mu.Unlock()
	for time.Now().Before(deadline) && n < maxDeleteBatch {
		time.Sleep(deleteGap)
		d.mu.Lock()
		m := len(d.queue)
		d.mu.Unlock()
		if m == n {
			return
		}
		n = m
	}
}

// singleParallelism bounds the Delete calls in flight for an agent
// without DeleteMany.
const singleParallelism = 10

// send makes calls until the queue is empty.
func (d *deleter) send(ctx context.Context, agent pb.AgentClient) {
	for {
		d.linger()
		d.mu.Lock()
		batch := takeBatch(&d.queue, maxDeleteBatch)
		if len(batch) == 0 {
			d.senders--
			d.mu.Unlock()
			return
		}
		single := d.single
		d.mu.Unlock()
		if single {
			sem := make(chan struct{}, singleParallelism)
			for _, p := range batch {
				sem <- struct{}{}
				go func() {
					defer func() { <-sem }()
					_, p.err = agent.Delete(ctx, &pb.DeleteRequest{Address: p.address})
					close(p.done)
				}()
			}
			for range singleParallelism {
				sem <- struct{}{}
			}
			continue
		}
		req := &pb.DeleteManyRequest{Addresses: make([]string, len(batch))}
		for i, p := range batch {
			req.Addresses[i] = p.address
		}
		resp, err := agent.DeleteMany(ctx, req)
		if status.Code(err) == codes.Unimplemented {
			d.mu.Lock()
			d.single = true
			d.queue = append(batch, d.queue...)
			d.mu.Unlock()
			continue
		}
		if err == nil && len(resp.Results) != len(batch) {
			err = status.Errorf(codes.Internal, "DeleteMany answered %d results for %d addresses", len(resp.Results), len(batch))
		}
		for i, p := range batch {
			switch {
			case err != nil:
				p.err = err
			case resp.Results[i].Code != 0:
				p.err = status.Error(codes.Code(resp.Results[i].Code), resp.Results[i].Error)
			}
			close(p.done)
		}
	}
}
