package client

import (
	"context"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
)

// ReconnectNow asks the agent to make the connection of the object it
// holds as address again at once (the agent's Reconnect: an endpoint
// connects again, its back-off reset; an accepted connection is ended
// for its client to make again), over the local socket or mutual TLS
// alike, and returns what the agent did; an error says why not in words
// (Explain).
func (c *Client) ReconnectNow(ctx context.Context, address string) (string, error) {
	r, err := c.Reconnect(ctx, &pb.ReconnectRequest{Address: address})
	if err != nil {
		return "", Explain(err)
	}
	return r.Done, nil
}
