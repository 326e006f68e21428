package client_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/rdmaform/rdmaform/apply/agent"
	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/apply/agent/agenttest/pki"
	"github.com/rdmaform/rdmaform/apply/agent/client"
)

// tlsAgent is an agent serving mutual TLS on 127.0.0.1 in this process.
type tlsAgent struct {
	info   *pb.InfoResponse
	stderr *lockedWriter
}

// runTLSAgent serves an agent with the server certificate and client CA
// given, on a free port of 127.0.0.1, until the test ends.
func runTLSAgent(t *testing.T, server pki.Pair, clientCA *pki.CA, allow ...string) *tlsAgent {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan *pb.InfoResponse, 1)
	done := make(chan error, 1)
	stderr := &lockedWriter{w: &bytes.Buffer{}}
	go func() {
		done <- agent.Run(ctx, agent.Options{Socket: socketIn(t), Version: "test", Stderr: stderr,
			TLS:   agent.TLS{Listen: "127.0.0.1:0", CertFile: server.CertFile, KeyFile: server.KeyFile, ClientCAFile: clientCA.CertFile, AllowNames: allow},
			Ready: func(info *pb.InfoResponse) { ready <- info }})
	}()
	var a *tlsAgent
	select {
	case info := <-ready:
		a = &tlsAgent{info: info, stderr: stderr}
	case err := <-done:
		cancel()
		t.Fatalf("agent.Run: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("the agent did not get ready")
	}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("agent.Run: %v", err)
		}
	})
	return a
}

// waitLog waits (generously) for the agent's log to say want.
func (a *tlsAgent) waitLog(t *testing.T, want string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		a.stderr.mu.Lock()
		got := a.stderr.w.String()
		a.stderr.mu.Unlock()
		if strings.Contains(got, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the agent's log does not say %q:\n%s", want, got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// testPKI is a CA with an agent's certificate for 127.0.0.1 and a
// client's, and another CA with the same.
type testPKI struct {
	ca, other              *pki.CA
	server, client         pki.Pair
	otherServer, otherUser pki.Pair
}

func newTestPKI(t *testing.T) *testPKI {
	dir := t.TempDir()
	p := &testPKI{ca: pki.NewCA(t, dir, "ca"), other: pki.NewCA(t, dir, "other-ca")}
	p.server = p.ca.Server(t, "storage-1", pki.IPs("127.0.0.1"), pki.DNSNames("storage-1"))
	p.client = p.ca.Client(t, "operator")
	p.otherServer = p.other.Server(t, "impostor", pki.IPs("127.0.0.1"))
	p.otherUser = p.other.Client(t, "stranger")
	return p
}

func remote(a *tlsAgent, ca *pki.CA, user pki.Pair) client.Remote {
	return client.Remote{Address: a.info.Listen, CAFile: ca.CertFile, CertFile: user.CertFile, KeyFile: user.KeyFile}
}

func dialRemote(r client.Remote) (*client.Client, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return client.DialRemote(ctx, r)
}

// remoteProblem dials r, expecting a RemoteError of problem p whose
// words hold every one of want and no gRPC status text.
func remoteProblem(t *testing.T, r client.Remote, p client.Problem, want ...string) {
	t.Helper()
	c, err := dialRemote(r)
	if err == nil {
		c.Close()
		t.Fatalf("DialRemote %s: no error", r.Address)
	}
	t.Logf("DialRemote: %v", err)
	var re *client.RemoteError
	if !errors.As(err, &re) || re.Problem != p {
		t.Fatalf("DialRemote %s: %T %v, want problem %d", r.Address, err, err, p)
	}
	for _, w := range append(want, r.Address) {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("the error does not say %q:\n%v", w, err)
		}
	}
	if strings.Contains(err.Error(), "rpc error") {
		t.Errorf("gRPC's words in the error: %v", err)
	}
}

func TestRemoteAgentAnswersAGoodClient(t *testing.T) {
	p := newTestPKI(t)
	a := runTLSAgent(t, p.server, p.ca)
	if !strings.HasPrefix(a.info.Listen, "127.0.0.1:") || a.info.CertificateSubject != "CN=storage-1" ||
		!time.Unix(0, a.info.CertificateNotAfter).Equal(p.server.Cert.NotAfter) {
		t.Errorf("info: listen %q, subject %q, not after %v", a.info.Listen, a.info.CertificateSubject, time.Unix(0, a.info.CertificateNotAfter))
	}
	c, err := dialRemote(remote(a, p.ca, p.client))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Address != a.info.Listen {
		t.Errorf("client address %q", c.Address)
	}
	info, err := c.Info(context.Background(), &pb.InfoRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if info.Listen != a.info.Listen || info.CertificateSubject != "CN=storage-1" {
		t.Errorf("info over TCP: %v", info)
	}
	// A server name the certificate holds, other than the address dialled.
	r := remote(a, p.ca, p.client)
	r.ServerName = "storage-1"
	c2, err := dialRemote(r)
	if err != nil {
		t.Fatalf("with server name storage-1: %v", err)
	}
	c2.Close()
}

func TestRemoteAgentRefusesACertificateOfAnotherCA(t *testing.T) {
	p := newTestPKI(t)
	a := runTLSAgent(t, p.server, p.ca)
	remoteProblem(t, remote(a, p.ca, p.otherUser), client.Refused,
		"refused our certificate ("+p.otherUser.CertFile+")", "not signed by the agent's client CA")
	a.waitLog(t, "(CN=stranger) is not signed by the client CA")
	a.waitLog(t, "client certificate from 127.0.0.1:")
}

func TestRemoteClientRefusesAnAgentOfAnotherCA(t *testing.T) {
	p := newTestPKI(t)
	a := runTLSAgent(t, p.otherServer, p.ca)
	remoteProblem(t, remote(a, p.ca, p.client), client.UnknownAuthority,
		"presented a certificate (CN=impostor) not signed by the CA in "+p.ca.CertFile)
	a.waitLog(t, "refused the agent's certificate")
}

func TestRemoteClientRefusesAnAgentOfAnotherName(t *testing.T) {
	p := newTestPKI(t)
	a := runTLSAgent(t, p.server, p.ca)
	r := remote(a, p.ca, p.client)
	r.ServerName = "storage-9"
	remoteProblem(t, r, client.WrongName, `a certificate for storage-1, 127.0.0.1, not for "storage-9"`)
}

func TestRemoteAgentRefusesAClientNotInItsAllowList(t *testing.T) {
	p := newTestPKI(t)
	a := runTLSAgent(t, p.server, p.ca, "admin", "ops.example")
	remoteProblem(t, remote(a, p.ca, p.client), client.Refused, "not in the agent's allow-list")
	a.waitLog(t, "is signed by the client CA, but it holds the names operator, none of which is in the agent's -tls-allow-name list (admin, ops.example)")

	// By CN, or by a DNS name.
	for _, user := range []pki.Pair{p.ca.Client(t, "admin"), p.ca.Client(t, "someone", pki.DNSNames("ops.example"))} {
		c, err := dialRemote(remote(a, p.ca, user))
		if err != nil {
			t.Fatalf("%s: %v", user.Cert.Subject, err)
		}
		c.Close()
	}
}

func TestRemoteAgentRefusesTLS12(t *testing.T) {
	p := newTestPKI(t)
	a := runTLSAgent(t, p.server, p.ca)
	pair, err := tls.LoadX509KeyPair(p.client.CertFile, p.client.KeyFile)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := tls.Dial("tcp", a.info.Listen, &tls.Config{MaxVersion: tls.VersionTLS12, Certificates: []tls.Certificate{pair}, InsecureSkipVerify: true})
	if err == nil {
		conn.Close()
		t.Fatal("a TLS 1.2 client was served")
	}
	a.waitLog(t, "offered only TLS versions older than 1.3")
}

func TestRemoteAgentRefusesPlaintext(t *testing.T) {
	p := newTestPKI(t)
	a := runTLSAgent(t, p.server, p.ca)
	conn, err := grpc.NewClient("passthrough:///"+a.info.Listen, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{}); err == nil {
		t.Fatal("a plaintext client was served")
	}
	a.waitLog(t, "does not speak TLS (a plaintext client?)")
}

func TestRemoteUnreachableAndNotTLS(t *testing.T) {
	p := newTestPKI(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	r := client.Remote{Address: closed, CAFile: p.ca.CertFile, CertFile: p.client.CertFile, KeyFile: p.client.KeyFile}
	remoteProblem(t, r, client.Unreachable, "no rdmaform agent answers at", "connection refused")
	if _, err := dialRemote(r); !client.IsUnreachable(err) {
		t.Errorf("IsUnreachable(%v) is false", err)
	}

	// A plaintext gRPC server: it answers, but not with TLS.
	ln, err = net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	healthpb.RegisterHealthServer(srv, health.NewServer())
	go srv.Serve(ln)
	defer srv.Stop()
	r.Address = ln.Addr().String()
	remoteProblem(t, r, client.NotTLS, "does not speak TLS")
}

func TestRemoteLocalFiles(t *testing.T) {
	p := newTestPKI(t)
	good := client.Remote{Address: "127.0.0.1:1", CAFile: p.ca.CertFile, CertFile: p.client.CertFile, KeyFile: p.client.KeyFile}
	missingCA := good
	missingCA.CAFile = p.ca.CertFile + ".gone"
	remoteProblem(t, missingCA, client.LocalFiles, "reading the CA file", ".gone")
	mismatched := good
	mismatched.KeyFile = p.server.KeyFile
	remoteProblem(t, mismatched, client.LocalFiles, "the key in "+p.server.KeyFile+" is not the key of the certificate in "+p.client.CertFile)
	noCA := good
	noCA.CAFile = p.client.KeyFile
	remoteProblem(t, noCA, client.LocalFiles, "holds no PEM certificate")
}

// A port that takes the connection but never speaks: DialRemote without
// a deadline gives up after DefaultRemoteTimeout, saying so.
func TestRemoteSilentPortIsBoundedByTheDefaultTimeout(t *testing.T) {
	p := newTestPKI(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close() // never accepted: the kernel completes the TCP handshake
	r := client.Remote{Address: ln.Addr().String(), CAFile: p.ca.CertFile, CertFile: p.client.CertFile, KeyFile: p.client.KeyFile}
	type result struct {
		err  error
		took time.Duration
	}
	done := make(chan result, 1)
	go func() {
		start := time.Now()
		c, err := client.DialRemote(context.Background(), r)
		if c != nil {
			c.Close()
		}
		done <- result{err, time.Since(start)}
	}()
	select {
	case res := <-done:
		if !client.IsUnreachable(res.err) || !strings.Contains(res.err.Error(), "no answer in time") {
			t.Errorf("DialRemote to a silent port: %v", res.err)
		}
		if res.took < client.DefaultRemoteTimeout {
			t.Errorf("gave up after %v, before the default %v", res.took, client.DefaultRemoteTimeout)
		}
	case <-time.After(time.Minute):
		t.Fatal("DialRemote to a silent port without a deadline did not return within a minute")
	}
}

func TestRemoteAgentRefusesAnExpiredClientCertificate(t *testing.T) {
	p := newTestPKI(t)
	a := runTLSAgent(t, p.server, p.ca)
	old := p.ca.Client(t, "old-operator", pki.Expired())
	remoteProblem(t, remote(a, p.ca, old), client.Refused, "refused our certificate", "expired")
	a.waitLog(t, "(CN=old-operator) is expired or not yet valid (valid from "+old.Cert.NotBefore.UTC().Format(time.DateOnly))
}

// The agent refuses to start with an expired certificate, so a TLS
// server stands in for one whose certificate expired while it ran.
func TestRemoteClientRefusesAnExpiredAgentCertificate(t *testing.T) {
	p := newTestPKI(t)
	old := p.ca.Server(t, "old-agent", pki.IPs("127.0.0.1"), pki.Expired())
	pair, err := tls.LoadX509KeyPair(old.CertFile, old.KeyFile)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{pair}})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { c.(*tls.Conn).Handshake(); c.Close() }()
		}
	}()
	r := client.Remote{Address: ln.Addr().String(), CAFile: p.ca.CertFile, CertFile: p.client.CertFile, KeyFile: p.client.KeyFile}
	remoteProblem(t, r, client.AgentCertificate, "presented a certificate (CN=old-agent) that is expired or not yet valid (valid from "+
		old.Cert.NotBefore.UTC().Format(time.DateOnly)+" to "+old.Cert.NotAfter.UTC().Format(time.DateOnly))
}
