package pki_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/apply/agent"
	pb "github.com/rdmaform/rdmaform/apply/agent/agentpb"
	"github.com/rdmaform/rdmaform/apply/agent/client"
)

// runPKIScript copies examples/multi-host/pki.sh into a temporary
// directory and runs it there, from another directory, with args; it
// returns the pki/ directory it made.
func runPKIScript(t *testing.T, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Fatal("this test runs examples/multi-host/pki.sh, which needs openssl (apt-get install openssl)")
	}
	script, err := os.ReadFile("../../../../examples/multi-host/pki.sh")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "multi-host")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pki.sh"), script, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", filepath.Join(dir, "pki.sh"))
	cmd.Args = append(cmd.Args, args...)
	cmd.Dir = t.TempDir() // "works from any directory"
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pki.sh %v: %v\n%s", args, err, out)
	}
	return filepath.Join(dir, "pki")
}

func loadPair(t *testing.T, dir, name string) *x509.Certificate {
	t.Helper()
	pair, err := tls.LoadX509KeyPair(filepath.Join(dir, name+".pem"), filepath.Join(dir, name+"-key.pem"))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	fi, err := os.Stat(filepath.Join(dir, name+"-key.pem"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("%s-key.pem: mode %v, %v; want 0600", name, fi.Mode().Perm(), err)
	}
	return pair.Leaf
}

func TestPKIScriptMakesAChainGoAccepts(t *testing.T) {
	dir := runPKIScript(t)
	caPEM, err := os.ReadFile(filepath.Join(dir, "ca.pem"))
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPEM) {
		t.Fatal("ca.pem holds no certificate")
	}
	for _, host := range []string{"10.77.1.1", "10.77.1.2", "10.77.1.3"} {
		leaf := loadPair(t, dir, host)
		if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: host, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
			t.Errorf("%s: %v", host, err)
		}
		if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: "10.77.1.9"}); err == nil {
			t.Errorf("%s's certificate holds 10.77.1.9", host)
		}
	}
	op := loadPair(t, dir, "operator")
	if _, err := op.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("operator: %v", err)
	}
	if _, err := op.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err == nil {
		t.Error("operator's certificate is accepted for a server")
	}
}

// An agent serves, and a client reaches it, with the script's files.
func TestPKIScriptCertificatesServeAnAgent(t *testing.T) {
	dir := runPKIScript(t, "127.0.0.1", "storage-1")
	file := func(name string) string { return filepath.Join(dir, name) }
	for _, server := range []struct{ name, dial string }{{"127.0.0.1", ""}, {"storage-1", "storage-1"}} {
		ctx, cancel := context.WithCancel(context.Background())
		ready, done := make(chan *pb.InfoResponse, 1), make(chan error, 1)
		go func() {
			done <- agent.Run(ctx, agent.Options{Socket: filepath.Join(t.TempDir(), "rdmaform", "agent.sock"), Stderr: io.Discard,
				TLS: agent.TLS{Listen: "127.0.0.1:0", CertFile: file(server.name + ".pem"), KeyFile: file(server.name + "-key.pem"),
					ClientCAFile: file("ca.pem"), AllowNames: []string{"operator"}},
				Ready: func(info *pb.InfoResponse) { ready <- info }})
		}()
		var info *pb.InfoResponse
		select {
		case info = <-ready:
		case err := <-done:
			cancel()
			t.Fatalf("agent.Run with %s.pem: %v", server.name, err)
		}
		dctx, dcancel := context.WithTimeout(context.Background(), 20*time.Second)
		c, err := client.DialRemote(dctx, client.Remote{Address: info.Listen, ServerName: server.dial,
			CAFile: file("ca.pem"), CertFile: file("operator.pem"), KeyFile: file("operator-key.pem")})
		dcancel()
		if err != nil {
			t.Errorf("DialRemote to the agent with %s.pem: %v", server.name, err)
		} else {
			if _, err := c.Info(context.Background(), &pb.InfoRequest{}); err != nil {
				t.Errorf("Info: %v", err)
			}
			c.Close()
		}
		cancel()
		if err := <-done; err != nil {
			t.Errorf("agent.Run: %v", err)
		}
	}
}
