package agent

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metricsServer serves /metrics for Prometheus: over the agent's mutual
// TLS (the same certificate, client CA and allowed names as -listen) when
// the agent has TLS settings, since the figures name the fabric's
// objects, and in plaintext otherwise.
type metricsServer struct {
	srv *http.Server
	ln  net.Listener
}

// serveMetrics listens on addr and serves a's registry there.
func serveMetrics(a *Agent, addr string, stls *serverTLS, log *slog.Logger) (*metricsServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listening on %s (-metrics): %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", metricsHandler(a, log))
	srv := &http.Server{
		Handler: mux, ReadHeaderTimeout: 10 * time.Second,
		// A refused handshake (no client certificate, another CA) is a
		// warning in the agent's log, as on -listen.
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	m := &metricsServer{srv: srv, ln: ln}
	if stls != nil {
		m.ln = tls.NewListener(ln, stls.config)
	}
	go func() {
		if err := srv.Serve(m.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("the metrics server failed", "err", err)
		}
	}()
	return m, nil
}

// Addr is where the server listens (the port chosen for ":0").
func (m *metricsServer) Addr() string { return m.ln.Addr().String() }

// Close stops serving; scrapes under way are cut.
func (m *metricsServer) Close() error {
	if m == nil {
		return nil
	}
	return m.srv.Close()
}

// metricsHandler serves a's registry in Prometheus' formats; a collector
// that fails is logged (nil log: dropped) and the rest still served.
func metricsHandler(a *Agent, log *slog.Logger) http.Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return promhttp.HandlerFor(a.Registry(), promhttp.HandlerOpts{
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn), ErrorHandling: promhttp.ContinueOnError,
	})
}
