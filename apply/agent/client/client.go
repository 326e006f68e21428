// Package client is the CLI's side of the agent's API: it dials the
// agent's unix socket and, when no agent answers, starts one in the
// background and says so; DialRemote reaches an agent on another host
// over mutual TLS.
package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
)

// maxMessage bounds replies: a list of tens of thousands of objects is
// several megabytes, over gRPC's 4 MB default.
const maxMessage = 256 << 20

// windowSize is the fixed flow-control window of the local connection.
const windowSize = 32 << 20

// Client is a connection to an agent.
type Client struct {
	pb.AgentClient
	Health healthpb.HealthClient
	Socket string
	// Address is a remote agent's HOST:PORT (DialRemote); Socket is then "".
	Address string
	// StartedPID is the pid of the agent Connect started for this client;
	// 0 when one already answered. A command that fails stops what it
	// started, and leaves alone what it found.
	StartedPID int

	conn   *grpc.ClientConn
	guard  *peerGuard
	remote *Remote
	watch  *remoteWatch
}

// Dial connects to the agent at socket and checks that it answers (the
// standard health check), within ctx. It first refuses a socket in a
// directory of another user or open to others, and every connection to a
// process of another user (but root), before a byte is sent: see
// Untrusted.
func Dial(ctx context.Context, socket string) (*Client, error) {
	if err := checkDir(socket); err != nil {
		return nil, err
	}
	guard := &peerGuard{socket: socket}
	conn, err := grpc.NewClient("passthrough:///"+socket,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(guard.dial),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxMessage), grpc.MaxCallSendMsgSize(maxMessage)),
		// A local socket has no bandwidth-delay product to discover: large
		// fixed windows let a list of 10,000 objects through without
		// waiting for window updates.
		grpc.WithInitialWindowSize(windowSize),
		grpc.WithInitialConnWindowSize(windowSize),
	)
	if err != nil {
		return nil, fmt.Errorf("agent at %s: %w", socket, err)
	}
	c := &Client{AgentClient: pb.NewAgentClient(conn), Health: healthpb.NewHealthClient(conn), Socket: socket, conn: conn, guard: guard}
	if err := c.Check(ctx); err != nil {
		conn.Close()
		return nil, err
	}
	return c, nil
}

// Check asks the agent's health service whether the Agent API is served.
func (c *Client) Check(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if c.remote != nil {
		return c.checkRemote(ctx)
	}
	r, err := c.Health.Check(ctx, &healthpb.HealthCheckRequest{Service: "rdmaform.agent.v1.Agent"})
	if err != nil {
		if refused := c.guard.refusal(); refused != nil {
			return refused
		}
		return unanswered(c.Socket, err)
	}
	if r.Status != healthpb.HealthCheckResponse_SERVING {
		return &NotRunning{Socket: c.Socket, Err: fmt.Errorf("the agent reports %s", r.Status)}
	}
	return nil
}

// peerGuard dials the agent's socket for gRPC and hands it only
// connections to a process of this user or root (checkPeer), keeping the
// last refusal so that Dial reports it rather than gRPC's words for a
// failed dial.
type peerGuard struct {
	socket  string
	mu      sync.Mutex
	refused error
}

func (g *peerGuard) dial(ctx context.Context, _ string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", g.socket)
	if err != nil {
		return nil, err
	}
	if err := checkPeer(g.socket, c); err != nil {
		c.Close()
		g.mu.Lock()
		g.refused = err
		g.mu.Unlock()
		return nil, err
	}
	return c, nil
}

func (g *peerGuard) refusal() error {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.refused
}

// Close closes the connection; it is idempotent.
func (c *Client) Close() error {
	if c == nil || c.conn == nil {
		return nil
	}
	err := c.conn.Close()
	c.conn = nil
	return err
}

// NotRunning is an agent that does not answer at a socket.
type NotRunning struct {
	Socket string
	Err    error
}

func (e *NotRunning) Error() string {
	return fmt.Sprintf("no rdmaform agent answers at %s: %s", e.Socket, Words(e.Err))
}

func (e *NotRunning) Unwrap() error { return e.Err }

// IsNotRunning reports whether err says no agent answered.
func IsNotRunning(err error) bool {
	var nr *NotRunning
	return errors.As(err, &nr)
}
