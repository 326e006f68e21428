package state

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/state/etcdtest"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// gRPCWords are what gRPC's own error text holds and no message may.
var gRPCWords = []string{"rpc error:", "code = ", "desc = "}

func saysGRPC(s string) bool {
	for _, w := range gRPCWords {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// An endpoint that is not etcd, a gRPC server without etcd's services or
// an HTTP server (which gRPC reads as "Unimplemented ... malformed
// header"), is said to be no etcd, naming it, in words: not as gRPC's
// "rpc error: code = Unimplemented desc = ...".
func TestEtcdEndpointThatIsNotEtcdIsSaid(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	healthpb.RegisterHealthServer(srv, health.NewServer())
	go srv.Serve(l)
	t.Cleanup(srv.Stop)

	// A web server answering 404 over HTTP/2 without TLS, as one behind
	// a mistyped port or path may.
	hl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	web := &http.Server{Handler: http.NotFoundHandler(), Protocols: new(http.Protocols)}
	web.Protocols.SetUnencryptedHTTP2(true)
	go web.Serve(hl)
	t.Cleanup(func() { web.Close() })

	for name, ep := range map[string]string{"a gRPC server": "http://" + l.Addr().String(), "a web server": "http://" + hl.Addr().String()} {
		e, err := NewEtcd(context.Background(), EtcdOptions{Endpoints: []string{ep}, Prefix: "x/"})
		if err != nil {
			t.Fatal(err)
		}
		_, lockErr := e.Lock(&LockInfo{Operation: "OperationTypePlan"})
		readErr := e.RefreshState()
		_, listErr := e.Workspaces()
		e.Close()
		for what, err := range map[string]error{"lock": lockErr, "read": readErr, "workspaces": listErr} {
			var notEtcd *NotEtcdError
			if !errors.As(err, &notEtcd) || saysGRPC(err.Error()) ||
				!strings.Contains(err.Error(), ep+" does not speak etcd's protocol (is it an etcd client URL? http vs https?)") {
				t.Errorf("%s, %s: %v", name, what, err)
			}
		}
	}
}

// An etcd that nothing listens for is unreachable, named with what to
// check; not a state lock someone holds.
func TestEtcdNothingListensIsUnreachable(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ep := "http://" + l.Addr().String()
	l.Close() // nothing listens there now
	e, err := NewEtcd(context.Background(), EtcdOptions{Endpoints: []string{ep}, Prefix: "x/"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	_, err = e.Lock(&LockInfo{Operation: "OperationTypePlan"})
	var unreachable *EtcdUnreachable
	if !errors.As(err, &unreachable) || errors.Is(err, ErrLocked) || saysGRPC(err.Error()) || strings.Contains(err.Error(), "context deadline exceeded") {
		t.Fatalf("lock: %v", err)
	}
	if advice := unreachable.Advice(); !strings.Contains(advice, "Check that etcd runs at "+ep) || !strings.Contains(advice, "etcdctl --endpoints="+ep+" endpoint health") {
		t.Errorf("advice: %s", advice)
	}
}

// gRPC's words for a refused connection are left out, the transport's
// kept.
func TestTransportWords(t *testing.T) {
	t.Parallel()
	got := transportWords(`connection error: desc = "transport: Error while dialing: dial tcp 127.0.0.1:1: connect: connection refused"`)
	if got != "dial tcp 127.0.0.1:1: connect: connection refused" {
		t.Errorf("%q", got)
	}
}

// http:// written for an etcd that serves https, or for any server that
// holds gRPC's requests without answering as HTTP/2, is said to be no etcd
// (it was "etcd did not answer in time"): a TLS server here.
func TestEtcdHTTPForAnHTTPSServerIsSaid(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	certs := etcdtest.NewCerts(t)
	cert, err := tls.LoadX509KeyPair(certs.ServerCert, certs.ServerKey)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.NotFoundHandler(), ErrorLog: log.New(io.Discard, "", 0)}
	go srv.Serve(tls.NewListener(l, &tls.Config{Certificates: []tls.Certificate{cert}}))
	t.Cleanup(func() { srv.Close() })
	ep := "http://" + l.Addr().String()
	e, err := NewEtcd(context.Background(), EtcdOptions{Endpoints: []string{ep}, Prefix: "x/"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	_, err = e.Lock(&LockInfo{Operation: "OperationTypePlan"})
	var notEtcd *NotEtcdError
	if !errors.As(err, &notEtcd) || saysGRPC(err.Error()) || !strings.Contains(err.Error(), "http vs https?") {
		t.Fatalf("lock: %v", err)
	}
}
