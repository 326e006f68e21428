package command

import (
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/apply/agent"
	"github.com/rdmaform/rdmaform/apply/agent/agenttest/pki"
)

func TestAgentStatusOverMutualTLS(t *testing.T) {
	dir := t.TempDir()
	ca := pki.NewCA(t, dir, "ca")
	server := ca.Server(t, "storage-1", pki.IPs("127.0.0.1"), pki.ValidFor(100*24*time.Hour))
	user := ca.Client(t, "operator")
	info := serveAgent(t, agent.Options{Socket: filepath.Join(t.TempDir(), "rdmaform", "agent.sock"), Version: "test", Stderr: io.Discard,
		TLS: agent.TLS{Listen: "127.0.0.1:0", CertFile: server.CertFile, KeyFile: server.KeyFile, ClientCAFile: ca.CertFile}})
	t.Chdir(".")
	code, out, errs := stateCmd(t, t.TempDir(), "", "agent", "status", "-address="+info.Listen,
		"-tls-ca="+ca.CertFile, "-tls-cert="+user.CertFile, "-tls-key="+user.KeyFile)
	if code != 0 {
		t.Fatalf("agent status: exit %d\n%s%s", code, out, errs)
	}
	// Valid from an hour ago for 100 days: 99 days and 23 hours left.
	want := "TCP: serving " + info.Listen + " over mutual TLS as CN=storage-1, certificate expires " +
		server.Cert.NotAfter.UTC().Format(time.DateOnly) + " (99 days)\n"
	if !strings.Contains(out, want) || !strings.Contains(out, "Agent: pid ") || !strings.Contains(out, "Objects: 0") {
		t.Errorf("agent status says\n%s\nwant a line\n%s", out, want)
	}

	// Another CA's client: the agent's refusal in words.
	stranger := pki.NewCA(t, t.TempDir(), "other").Client(t, "stranger")
	code, out, errs = stateCmd(t, t.TempDir(), "", "agent", "status", "-address="+info.Listen,
		"-tls-ca="+ca.CertFile, "-tls-cert="+stranger.CertFile, "-tls-key="+stranger.KeyFile)
	if code != 1 || !strings.Contains(errs, "Error: the agent at "+info.Listen+" refused our certificate") || strings.Contains(errs, "rpc error") {
		t.Errorf("agent status with another CA's certificate: exit %d\n%s%s", code, out, errs)
	}
}

func TestAgentListenWithoutTLSIsAFlagError(t *testing.T) {
	t.Chdir(".")
	code, out, errs := stateCmd(t, t.TempDir(), "", "agent", "-listen=127.0.0.1:7470", "-tls-cert=c.pem")
	if code != 1 || !strings.Contains(errs, "-listen needs -tls-key, -tls-client-ca") || !strings.Contains(errs, "no plaintext mode") {
		t.Errorf("agent -listen without TLS files: exit %d\n%s%s", code, out, errs)
	}
}

func TestExpiryWords(t *testing.T) {
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	for notAfter, want := range map[time.Time]string{
		time.Date(2027, 12, 1, 0, 0, 0, 0, time.UTC):  "certificate expires 2027-12-01 (358 days)",
		time.Date(2026, 12, 8, 13, 0, 0, 0, time.UTC): "certificate expires 2026-12-08 (1 day)",
		time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC):  "certificate EXPIRED 2026-12-04 (3 days ago)",
	} {
		if got := expiryWords(notAfter, now); got != want {
			t.Errorf("expiryWords(%v) = %q, want %q", notAfter, got, want)
		}
	}
}
