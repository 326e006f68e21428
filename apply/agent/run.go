package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/rdmacm"
)

// ServiceName is the Agent service's name, as health checks name it.
const ServiceName = "rdmaform.agent.v1.Agent"

// Options configure Run.
type Options struct {
	Socket  string    // the unix socket to serve (required)
	LogFile string    // JSON log; "" means agent.log beside the socket
	Version string    // rdmaform's version, for Info
	Stderr  io.Writer // text log; nil means os.Stderr
	// TLS, when its Listen is set, serves the API over TCP with mutual
	// TLS too (see tls.go); the unix socket is served either way.
	TLS TLS
	// LogFormat is stderr's log format: "text" (the default) or "json".
	LogFormat string
	// LogLevel is the logs' first level (trace, debug, info, warn,
	// error; "" is info); SetLogLevel changes it.
	LogLevel string
	// Metrics, when set, serves Prometheus' /metrics on HOST:PORT, over
	// the mutual TLS of TLS when it has certificate files.
	Metrics string
	// MetricsPerObject adds an object label to the per-endpoint counters
	// (a series per object: for small fabrics).
	MetricsPerObject bool
	// Ready, when set, is called once the API is served.
	Ready func(*pb.InfoResponse)
	// KernelCheck is how often the agent compares what it holds with the
	// kernel's RDMA resource tracking: 0 is KernelCheckInterval, a
	// negative value never (CheckKernel still compares on demand).
	KernelCheck time.Duration
}

// Run serves the agent on opts.Socket (and on opts.TLS.Listen over mutual
// TLS, when set) until ctx ends (SIGTERM) or a client
// calls Shutdown, then disconnects everything, destroys the ids and frees
// the protection domains last. It returns nil after an orderly stop.
func Run(ctx context.Context, opts Options) error {
	if opts.Socket == "" {
		return errors.New("agent: no socket given")
	}
	socket, err := filepath.Abs(opts.Socket)
	if err != nil {
		return err
	}
	if err := checkDir(socketDir(socket)); err != nil {
		return err
	}
	if opts.LogFile == "" {
		opts.LogFile = filepath.Join(socketDir(socket), "agent.log")
	}
	if opts.Stderr == nil {
		opts.Stderr = os.Stderr
	}
	// The certificates are checked before anything is made, so that a
	// bad file is the whole of the error.
	level := new(slog.LevelVar)
	if opts.LogLevel != "" {
		l, err := ParseLevel(opts.LogLevel)
		if err != nil {
			return err
		}
		level.Set(l)
	}
	if opts.LogFormat != "" && opts.LogFormat != "text" && opts.LogFormat != "json" {
		return fmt.Errorf("unknown log format %q (-log-format): use text or json", opts.LogFormat)
	}
	var stls *serverTLS
	hasTLS := opts.TLS.CertFile != "" || opts.TLS.KeyFile != "" || opts.TLS.ClientCAFile != ""
	if opts.TLS.Listen != "" || opts.Metrics != "" && hasTLS {
		if opts.TLS.CertFile == "" || opts.TLS.KeyFile == "" || opts.TLS.ClientCAFile == "" {
			if opts.TLS.Listen == "" {
				return errors.New("agent: -metrics with TLS settings serves over mutual TLS: it needs all of -tls-cert, -tls-key and -tls-client-ca")
			}
			return errors.New("agent: -listen serves TCP over mutual TLS only: it needs -tls-cert, -tls-key and -tls-client-ca")
		}
		if stls, err = loadServerTLS(opts.TLS, time.Now()); err != nil {
			return err
		}
	}
	logFile, err := os.OpenFile(opts.LogFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("opening the log file: %w", err)
	}
	defer logFile.Close()
	log := newLogger(logFile, opts.Stderr, opts.LogFormat == "json", level)

	lock, err := lockSocket(socket)
	if err != nil {
		return err
	}
	defer lock.release()
	raiseFileLimit(log)
	raiseMemlockLimit(log)
	ln, stale, err := listenSocket(socket)
	if err != nil {
		return err
	}
	if stale {
		log.Info("removed a stale socket", "socket", socket)
	}
	var tcp net.Listener
	if opts.TLS.Listen != "" { // stls may serve -metrics only
		if tcp, err = net.Listen("tcp", opts.TLS.Listen); err != nil {
			ln.Close()
			return fmt.Errorf("listening on %s (-listen): %w", opts.TLS.Listen, err)
		}
		defer tcp.Close()
	}

	defer tuneGC()()
	a := New(log)
	if opts.MetricsPerObject {
		a.metrics = newMetrics(true) // before any object exists
	}
	go a.warm()
	if opts.KernelCheck == 0 {
		opts.KernelCheck = KernelCheckInterval
	}
	if opts.KernelCheck > 0 {
		go a.watchKernel(a.ctx, opts.KernelCheck)
	}
	info := &pb.InfoResponse{
		Pid: int32(os.Getpid()), Socket: socket, LogFile: opts.LogFile,
		StartedAt: a.startedAt.UnixNano(), Version: opts.Version, Uid: uint32(os.Getuid()),
	}
	if tcp != nil {
		info.Listen = tcp.Addr().String()
		info.CertificateSubject = stls.leaf.Subject.String()
		info.CertificateNotAfter = stls.leaf.NotAfter.UnixNano()
	}
	if opts.Metrics != "" {
		ms, err := serveMetrics(a, opts.Metrics, stls, log)
		if err != nil {
			ln.Close()
			return err
		}
		defer ms.Close()
		info.Metrics, info.MetricsTls = ms.Addr(), stls != nil
		log.Info("serving metrics", "metrics", info.Metrics, "tls", stls != nil, "per_object", opts.MetricsPerObject)
	}
	stop := make(chan struct{})
	var once sync.Once
	svc := &service{agent: a, info: info, level: level, shutdown: func() { once.Do(func() { close(stop) }) }}
	srv := newServer()
	pb.RegisterAgentServer(srv, svc)
	hs := registerHealth(srv)
	servers := []*grpc.Server{srv}
	healths := []*health.Server{hs}

	served := make(chan error, 2)
	go func() { served <- srv.Serve(&peerListener{Listener: ln, uid: uint32(os.Getuid()), log: log}) }()
	log.Info("agent serving", "socket", socket, "pid", os.Getpid(), "log", opts.LogFile, "version", opts.Version)
	if tcp != nil {
		// Over TCP the peer's certificate is the authorisation (the
		// socket's peer credentials mean nothing there): its own server,
		// with the same service.
		tsrv := newServer(grpc.Creds(loggedTLS{credentials.NewTLS(stls.config), log}))
		pb.RegisterAgentServer(tsrv, svc)
		servers, healths = append(servers, tsrv), append(healths, registerHealth(tsrv))
		go func() { served <- tsrv.Serve(tcp) }()
		log.Info("agent serving over mutual TLS", "listen", info.Listen, "certificate", info.CertificateSubject,
			"expires", stls.leaf.NotAfter.UTC().Format(time.DateOnly), "allow_names", opts.TLS.AllowNames)
	}
	if opts.Ready != nil {
		opts.Ready(info)
	}

	var serveErr error
	select {
	case <-ctx.Done():
		log.Info("stopping: signal received")
	case <-stop:
		log.Info("stopping: shutdown requested")
	case serveErr = <-served:
		log.Error("stopping: the gRPC server failed", "err", serveErr)
	}
	for _, hs := range healths {
		hs.Shutdown()
	}
	closeErr := a.Close()
	if closeErr != nil {
		log.Warn("stopping", "err", closeErr)
	}
	for _, srv := range servers {
		done := make(chan struct{})
		go func() { srv.GracefulStop(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			srv.Stop()
		}
	}
	ln.Close()
	os.Remove(socket)
	log.Info("agent stopped")
	return serveErr
}

// raiseFileLimit lifts the soft descriptor limit to the hard one: each
// connected QP holds two completion-channel descriptors, so 1,000
// endpoints and their accepted peers need about 4,000.
func raiseFileLimit(log *slog.Logger) {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		log.Warn("getrlimit(RLIMIT_NOFILE)", "err", err)
		return
	}
	if lim.Cur >= lim.Max {
		return
	}
	old := lim.Cur
	lim.Cur = lim.Max
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		log.Warn("setrlimit(RLIMIT_NOFILE)", "err", err)
		return
	}
	log.Info("raised the descriptor limit", "from", old, "to", lim.Cur)
}

// lowMemlock is a locked-memory limit under which a few hundred QPs fail:
// each pins its queues, and the shared CQs and probe buffers pin more.
const lowMemlock = 64 << 20

// raiseMemlockLimit lifts the locked-memory limit as far as the agent may
// (every QP, CQ and memory region pins memory), and warns, with what to
// do, when it stays low.
func raiseMemlockLimit(log *slog.Logger) {
	lim, err := rdmacm.RaiseMemlockLimit()
	if err != nil {
		log.Warn("reading the locked-memory limit", "err", err)
		return
	}
	if lim.Cur != unix.RLIM_INFINITY && lim.Cur < lowMemlock {
		log.Warn("the locked-memory limit (RLIMIT_MEMLOCK) is low: QPs will fail with ENOMEM after a few hundred; run the agent as root, or raise it (LimitMEMLOCK=infinity in a systemd unit, a memlock line in /etc/security/limits.conf)",
			"limit_bytes", lim.Cur)
		return
	}
	log.Info("locked-memory limit", "limit", memlockWords(lim.Cur))
}

func memlockWords(n uint64) string {
	if n == unix.RLIM_INFINITY {
		return "unlimited"
	}
	return strconv.FormatUint(n, 10) + " bytes"
}

// registerHealth serves the standard health service, reporting the agent
// (and the server as a whole) as serving.
func registerHealth(srv *grpc.Server) *health.Server {
	hs := health.NewServer()
	hs.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	hs.SetServingStatus(ServiceName, healthpb.HealthCheckResponse_SERVING)
	healthpb.RegisterHealthServer(srv, hs)
	return hs
}

// newServer makes the gRPC server with large fixed flow-control windows:
// the socket is local, so there is no bandwidth-delay product to discover,
// and a list of 10,000 objects should not wait for window updates. It
// takes requests of at most MaxRequestBytes and MaxRequestEntries (see
// limits.go).
func newServer(opts ...grpc.ServerOption) *grpc.Server {
	const window = 32 << 20
	return grpc.NewServer(append([]grpc.ServerOption{
		grpc.InitialWindowSize(window), grpc.InitialConnWindowSize(window),
		grpc.MaxRecvMsgSize(MaxRequestBytes),
		grpc.ForceServerCodecV2(newBoundedCodec()),
	}, opts...)...)
}
