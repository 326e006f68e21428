package agentfabric

import (
	"context"
	"sync"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// batcher sends endpoint creates issued concurrently in CreateEndpoints
// calls: the first request is sent at once; those queued while a call is
// in flight go together in the next one (at most maxBatch per call). One
// call is in flight at a time.
type batcher struct {
	mu      sync.Mutex
	queue   []*pendingCreate
	sending bool
	// single: the agent does not implement CreateEndpoints; use
	// CreateEndpoint, one call per endpoint.
	single bool
}

// maxBatch bounds the endpoints of one CreateEndpoints call (and so the
// size of its messages).
const maxBatch = 256

type pendingCreate struct {
	req  *pb.CreateEndpointRequest
	done chan struct{}
	obj  *pb.Object
	err  error
}

// create has the agent create the endpoint (in a batch with others made
// concurrently) and returns the object's summary or the agent's error for
// that endpoint, as a gRPC status error.
func (b *batcher) create(ctx context.Context, agent pb.AgentClient, req *pb.CreateEndpointRequest) (*pb.Object, error) {
	p := b.enqueue(ctx, agent, req)
	<-p.done
	return p.obj, p.err
}

// enqueue queues req for the next call; done is closed once obj or err is
// set.
func (b *batcher) enqueue(ctx context.Context, agent pb.AgentClient, req *pb.CreateEndpointRequest) *pendingCreate {
	p := &pendingCreate{req: req, done: make(chan struct{})}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.queue = append(b.queue, p)
	if !b.sending {
		b.sending = true
		go b.send(context.WithoutCancel(ctx), agent)
	}
	return p
}

// send makes calls until the queue is empty.
func (b *batcher) send(ctx context.Context, agent pb.AgentClient) {
	for {
		b.mu.Lock()
		batch := takeBatch(&b.queue, maxBatch)
		if len(batch) == 0 {
			b.sending = false
			b.mu.Unlock()
			return
		}
		single := b.single
		b.mu.Unlock()
		if single {
			for _, p := range batch {
				p.obj, p.err = agent.CreateEndpoint(ctx, p.req)
				close(p.done)
			}
			continue
		}
		req := &pb.CreateEndpointsRequest{Endpoints: make([]*pb.CreateEndpointRequest, len(batch))}
		for i, p := range batch {
			req.Endpoints[i] = p.req
		}
		resp, err := agent.CreateEndpoints(ctx, req)
		if status.Code(err) == codes.Unimplemented {
			// An older agent: retry these one by one, and the next ones too.
			b.mu.Lock()
			b.single = true
			b.queue = append(batch, b.queue...)
			b.mu.Unlock()
			continue
		}
		if err == nil && len(resp.Results) != len(batch) {
			err = status.Errorf(codes.Internal, "CreateEndpoints answered %d results for %d endpoints", len(resp.Results), len(batch))
		}
		for i, p := range batch {
			switch {
			case err != nil:
				p.err = err
			case resp.Results[i].Code != 0:
				p.err = status.Error(codes.Code(resp.Results[i].Code), resp.Results[i].Error)
			case resp.Results[i].Object == nil:
				p.err = status.Errorf(codes.Internal, "CreateEndpoints answered no object for %s", p.req.Address)
			default:
				p.obj = resp.Results[i].Object
			}
			close(p.done)
		}
	}
}

// takeBatch removes up to max items from the front of *queue and returns
// them.
func takeBatch[T any](queue *[]T, max int) []T {
	batch := *queue
	if len(batch) > max {
		batch = batch[:max:max]
		*queue = (*queue)[max:]
	} else {
		*queue = nil
	}
	return batch
}
