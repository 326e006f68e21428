// Package etcdtest starts a real etcd server for tests.
package etcdtest

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// Start runs a real etcd server on loopback for the test and returns its
// client URL: the binary named by $RDMAFORM_ETCD, else "etcd" on $PATH
// (Debian's etcd-server package installs /usr/bin/etcd). It fails the
// test, never skips, when there is no etcd. The server is killed and its
// data removed in cleanup.
func Start(t testing.TB) string {
	t.Helper()
	return StartServer(t).URL
}

// Server is a running etcd.
type Server struct {
	URL  string
	proc *os.Process
}

// Pause stops the server (SIGSTOP) without closing its connections: it
// no longer answers, as a hung or partitioned etcd. It returns once the
// kernel shows the process stopped: a request sent just after the
// signal could otherwise still be answered.
func (s *Server) Pause() error {
	if err := s.proc.Signal(syscall.SIGSTOP); err != nil {
		return err
	}
	stat := fmt.Sprintf("/proc/%d/stat", s.proc.Pid)
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		b, err := os.ReadFile(stat)
		if err != nil {
			return err
		}
		// pid (comm) state ...: comm may hold spaces, so after the last ')'.
		if f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:])); len(f) > 0 && f[0] == "T" {
			return nil
		}
	}
	return fmt.Errorf("etcd (pid %d) did not stop within 5s of SIGSTOP", s.proc.Pid)
}

// Kill kills the server (SIGKILL): its connections close, and new ones
// are refused.
func (s *Server) Kill() error { return s.proc.Kill() }

// Resume lets a paused server go on (SIGCONT).
func (s *Server) Resume() error { return s.proc.Signal(syscall.SIGCONT) }

// StartServer is Start, returning the server.
func StartServer(t testing.TB) *Server {
	t.Helper()
	return StartWith(t, Options{})
}

// Options change how StartWith runs etcd.
type Options struct {
	// MaxRequestBytes is etcd's --max-request-bytes (its default, 1.5
	// MiB, when zero): a small one keeps tests of large records fast.
	MaxRequestBytes int
	// Certs, when set, has etcd serve clients over https with
	// Certs.ServerCert; ClientCertRequired makes it ask clients for a
	// certificate signed by Certs.CA.
	Certs              *Certs
	ClientCertRequired bool
}

// StartWith is StartServer with options. With TLS the URL is https.
func StartWith(t testing.TB, o Options) *Server {
	t.Helper()
	bin := os.Getenv("RDMAFORM_ETCD")
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("etcd"); err != nil {
			t.Fatalf("the etcd backend tests need an etcd server binary: install Debian's etcd-server package (apt-get install etcd-server) or set RDMAFORM_ETCD to an etcd binary: %v", err)
		}
	}
	client, peer := freePort(t), freePort(t)
	scheme := "http"
	if o.Certs != nil {
		scheme = "https"
	}
	clientURL := fmt.Sprintf("%s://127.0.0.1:%d", scheme, client)
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", peer)
	dir := t.TempDir()
	args := []string{
		"--name", "test",
		"--data-dir", filepath.Join(dir, "data"),
		"--listen-client-urls", clientURL, "--advertise-client-urls", clientURL,
		"--listen-peer-urls", peerURL, "--initial-advertise-peer-urls", peerURL,
		"--initial-cluster", "test=" + peerURL,
		"--logger", "zap", "--log-outputs", filepath.Join(dir, "etcd.log"),
	}
	if o.MaxRequestBytes > 0 {
		args = append(args, "--max-request-bytes", strconv.Itoa(o.MaxRequestBytes))
	}
	var health *tls.Config
	if c := o.Certs; c != nil {
		args = append(args, "--cert-file", c.ServerCert, "--key-file", c.ServerKey)
		if o.ClientCertRequired {
			args = append(args, "--client-cert-auth", "--trusted-ca-file", c.CA)
		}
		var err error
		if health, err = c.clientTLS(); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, args...)
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{clientURL}, DialTimeout: time.Second, Logger: zap.NewNop(), TLS: health})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	deadline := time.Now().Add(2 * time.Minute) // a loaded host took over 20 s
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := c.Get(ctx, "health")
		cancel()
		if err == nil {
			return &Server{URL: clientURL, proc: cmd.Process}
		}
		select {
		case err := <-exited:
			log, _ := os.ReadFile(filepath.Join(dir, "etcd.log"))
			t.Fatalf("etcd (%s) exited before becoming healthy: %v\n%s", bin, err, log)
		default:
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "etcd.log"))
			t.Fatalf("etcd at %s did not become healthy: %v\n%s", clientURL, err, log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
