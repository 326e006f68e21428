package agentfabric

import (
	"context"
	"sync"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// deleter sends deletes issued concurrently in DeleteMany calls, as
// batcher does creates: the first at once, those queued meanwhile
// together in the next call (at most maxBatch), one call in flight. The
// agent disconnects a call's listeners and endpoints in parallel, so a
// destroy waits for one disconnect per call rather than per endpoint.
type deleter struct {
	mu      sync.Mutex
	queue   []*pendingDelete
	sending bool
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
	if !d.sending {
		d.sending = true
		go d.send(context.WithoutCancel(ctx), agent)
	}
	return p
}

// singleParallelism bounds the Delete calls in flight for an agent
// without DeleteMany.
const singleParallelism = 10

// send makes calls until the queue is empty.
func (d *deleter) send(ctx context.Context, agent pb.AgentClient) {
	for {
		d.mu.Lock()
		batch := d.queue
		if len(batch) > maxBatch {
			batch = batch[:maxBatch:maxBatch]
			d.queue = d.queue[maxBatch:]
		} else {
			d.queue = nil
		}
		if len(batch) == 0 {
			d.sending = false
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
