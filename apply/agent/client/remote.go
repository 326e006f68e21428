package client

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
)

// Remote is how to reach an agent on another host: its TCP address and
// the files of mutual TLS.
type Remote struct {
	Address string // HOST:PORT
	// CAFile holds the CA the agent's certificate must chain to;
	// CertFile and KeyFile are this client's certificate and key.
	CAFile, CertFile, KeyFile string
	// ServerName is the name the agent's certificate must hold (""
	// means Address's host).
	ServerName string
}

// DefaultRemoteTimeout bounds DialRemote when its context has no
// deadline: an agent that answers does so within milliseconds, and one
// that does not should be named soon, not after TCP's minutes.
const DefaultRemoteTimeout = 5 * time.Second

// DialRemote connects to the agent r names over mutual TLS (TLS 1.3, the
// agent's certificate checked against CAFile and ServerName, ours from
// CertFile and KeyFile) and checks that it answers, as Dial does for the
// local socket. Its errors are *RemoteError, whose Problem says what
// went wrong.
func DialRemote(ctx context.Context, r Remote) (*Client, error) {
	return dialRemote(ctx, r, nil)
}

func dialRemote(ctx context.Context, r Remote, files *RemoteFiles) (*Client, error) {
	cfg, err := r.tlsConfig(files)
	if err != nil {
		return nil, err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultRemoteTimeout)
		defer cancel()
	}
	w := &remoteWatch{}
	conn, err := grpc.NewClient("passthrough:///"+r.Address,
		grpc.WithTransportCredentials(watchedTLS{credentials.NewTLS(cfg), w}),
		grpc.WithContextDialer(w.dial),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxMessage), grpc.MaxCallSendMsgSize(maxMessage)),
		grpc.WithInitialWindowSize(windowSize),
		grpc.WithInitialConnWindowSize(windowSize),
	)
	if err != nil {
		return nil, &RemoteError{Address: r.Address, Problem: Unreachable, Err: err}
	}
	c := &Client{AgentClient: pb.NewAgentClient(conn), Health: healthpb.NewHealthClient(conn), Address: r.Address, conn: conn, remote: &r, watch: w}
	if err := c.checkRemote(ctx); err != nil {
		conn.Close()
		return nil, err
	}
	return c, nil
}

// checkRemote is Check for a remote agent: the health check, and when it
// fails, why, from what the connection saw.
func (c *Client) checkRemote(ctx context.Context) error {
	resp, err := c.Health.Check(ctx, &healthpb.HealthCheckRequest{Service: "rdmaform.agent.v1.Agent"})
	if err != nil {
		return c.watch.why(*c.remote, ctx, err)
	}
	if resp.Status != healthpb.HealthCheckResponse_SERVING {
		return &RemoteError{Address: c.Address, Problem: Unreachable, Err: fmt.Errorf("the agent reports %s", resp.Status)}
	}
	return nil
}

// tlsConfig loads r's files (through files, when not nil), refusing
// what no handshake could use.
func (r Remote) tlsConfig(files *RemoteFiles) (*tls.Config, error) {
	load := loadRemoteFiles
	if files != nil {
		load = files.load
	}
	roots, pair, err := load(r.CAFile, r.CertFile, r.KeyFile)
	if err != nil {
		return nil, &RemoteError{Address: r.Address, Problem: LocalFiles, Err: err}
	}
	name := r.ServerName
	if name == "" {
		host, _, err := net.SplitHostPort(r.Address)
		if err != nil {
			return nil, &RemoteError{Address: r.Address, Problem: Unreachable, Err: fmt.Errorf("the address must be HOST:PORT, such as 10.77.1.1:7470: %w", err)}
		}
		name = host
	}
	return &tls.Config{
		MinVersion: tls.VersionTLS13,
		RootCAs:    roots,
		// Always ours, even when the agent names CAs that did not sign
		// it: Go would otherwise send none, and the agent could only say
		// that none came, not that ours is of another CA.
		GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return pair, nil },
		ServerName:           name,
	}, nil
}

// loadRemoteFiles reads the CA file and our certificate and key.
func loadRemoteFiles(caFile, certFile, keyFile string) (*x509.CertPool, *tls.Certificate, error) {
	caPEM, err := os.ReadFile(caFile)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the CA file: %w", err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPEM) {
		return nil, nil, fmt.Errorf("the CA file %s holds no PEM certificate", caFile)
	}
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	switch {
	case err != nil && strings.Contains(err.Error(), "does not match"):
		return nil, nil, fmt.Errorf("the key in %s is not the key of the certificate in %s: give the key made with that certificate", keyFile, certFile)
	case err != nil:
		var pathErr *os.PathError
		if errors.As(err, &pathErr) {
			return nil, nil, fmt.Errorf("reading our certificate or key: %w", err)
		}
		return nil, nil, fmt.Errorf("loading our certificate %s and key %s: %w", certFile, keyFile, err)
	}
	return roots, &pair, nil
}

// remoteWatch keeps how the latest connection attempt failed (dial or
// handshake), for DialRemote to say which step failed rather
// than gRPC's summary of it. gRPC waits a second at least before the next
// attempt, so the failure a call reports is still the latest.
type remoteWatch struct {
	mu               sync.Mutex
	dialErr, handErr error
	handshook        bool
}

func (w *remoteWatch) dial(ctx context.Context, addr string) (net.Conn, error) {
	w.mu.Lock()
	w.dialErr, w.handErr, w.handshook = nil, nil, false
	w.mu.Unlock()
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		w.mu.Lock()
		w.dialErr = err
		w.mu.Unlock()
		return nil, err
	}
	return c, nil
}

// watchedTLS is the client's TLS credentials, recording in a
// remoteWatch why a handshake failed, counting as part of it the agent's
// verdict on our certificate.
type watchedTLS struct {
	credentials.TransportCredentials
	w *remoteWatch
}

func (t watchedTLS) ClientHandshake(ctx context.Context, authority string, raw net.Conn) (net.Conn, credentials.AuthInfo, error) {
	conn, info, err := t.TransportCredentials.ClientHandshake(ctx, authority, raw)
	if err == nil {
		conn, err = awaitVerdict(ctx, conn)
	}
	t.w.mu.Lock()
	defer t.w.mu.Unlock()
	if err != nil {
		t.w.handErr = err
		return nil, nil, err
	}
	t.w.handshook = true
	return conn, info, nil
}

func (t watchedTLS) Clone() credentials.TransportCredentials {
	return watchedTLS{t.TransportCredentials.Clone(), t.w}
}

// awaitVerdict reads the agent's first byte. In TLS 1.3 the server
// judges our certificate after our side of the handshake is done: a
// refusal is an alert on the first read, an acceptance the agent's first
// HTTP/2 frame (a gRPC server speaks first). Waiting for it here makes a
// refusal a failed handshake, in words, rather than whichever of gRPC's
// reads and writes meets the closed connection first.
func awaitVerdict(ctx context.Context, conn net.Conn) (net.Conn, error) {
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(DefaultRemoteTimeout)
	}
	conn.SetReadDeadline(deadline)
	first := make([]byte, 1)
	n, err := conn.Read(first)
	conn.SetReadDeadline(time.Time{})
	if err != nil {
		conn.Close()
		if remoteAlert(err) != "" {
			return nil, err
		}
		return nil, &silentError{err}
	}
	return &prefixConn{Conn: conn, prefix: first[:n]}, nil
}

// silentError is an agent that completed the handshake, then closed or
// said nothing.
type silentError struct{ err error }

func (e *silentError) Error() string {
	return "the TLS handshake completed, but the agent said nothing after it: " + e.err.Error()
}
func (e *silentError) Unwrap() error { return e.err }

// prefixConn is a connection whose first bytes were read already.
type prefixConn struct {
	net.Conn
	prefix []byte
}

func (c *prefixConn) Read(p []byte) (int, error) {
	if len(c.prefix) > 0 {
		n := copy(p, c.prefix)
		c.prefix = c.prefix[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}

// why turns the failure of the first call into a RemoteError from what
// the watch saw.
func (w *remoteWatch) why(r Remote, ctx context.Context, callErr error) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	e := &RemoteError{Address: r.Address, Remote: r}
	switch {
	case w.handErr != nil:
		e.Problem, e.Err = handshakeProblem(w.handErr)
	case w.dialErr != nil:
		e.Problem, e.Err = Unreachable, w.dialErr
	case ctx.Err() != nil:
		e.Problem, e.Err = Unreachable, ctx.Err()
		if w.handshook {
			e.Err = fmt.Errorf("the connection was made, but the agent did not answer: %w", ctx.Err())
		}
	default:
		e.Problem, e.Err = Unreachable, callErr
	}
	return e
}

// handshakeProblem classifies a failed client handshake.
func handshakeProblem(err error) (Problem, error) {
	var unknown x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	var header tls.RecordHeaderError
	var silent *silentError
	switch {
	case errors.As(err, &silent):
		return Unreachable, err
	case errors.As(err, &unknown):
		return UnknownAuthority, err
	case errors.As(err, &hostname):
		return WrongName, err
	case errors.As(err, &invalid):
		return AgentCertificate, err
	case errors.As(err, &header):
		return NotTLS, err
	case remoteAlert(err) != "":
		return Refused, err
	}
	return NotTLS, err
}

// remoteAlert is the TLS alert the agent sent, as Go's tls words it
// ("tls: bad certificate"), or "".
func remoteAlert(err error) string {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "remote error" && op.Err != nil {
		return op.Err.Error()
	}
	return ""
}
