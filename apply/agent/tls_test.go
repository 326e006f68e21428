package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/apply/agent/agenttest/pki"
)

func TestLoadServerTLSRefusesWhatNoHandshakeCouldUse(t *testing.T) {
	dir := t.TempDir()
	ca := pki.NewCA(t, dir, "ca")
	good := ca.Server(t, "storage-1", pki.IPs("127.0.0.1"))
	other := ca.Server(t, "storage-2")
	expired := ca.Server(t, "old", pki.Expired())
	future := ca.Server(t, "future", pki.NotYetValid())
	opts := func(p pki.Pair) TLS {
		return TLS{Listen: "127.0.0.1:0", CertFile: p.CertFile, KeyFile: p.KeyFile, ClientCAFile: ca.CertFile}
	}
	day := func(tm time.Time) string { return tm.UTC().Format(time.DateOnly) }
	tests := []struct {
		name string
		o    TLS
		want []string
	}{
		{"unreadable certificate", TLS{CertFile: filepath.Join(dir, "gone.pem"), KeyFile: good.KeyFile, ClientCAFile: ca.CertFile},
			[]string{"reading the agent's certificate (-tls-cert)", "gone.pem", "no such file"}},
		{"unreadable key", TLS{CertFile: good.CertFile, KeyFile: filepath.Join(dir, "gone-key.pem"), ClientCAFile: ca.CertFile},
			[]string{"reading the agent's key (-tls-key)", "gone-key.pem"}},
		{"unreadable client CA", TLS{CertFile: good.CertFile, KeyFile: good.KeyFile, ClientCAFile: filepath.Join(dir, "none.pem")},
			[]string{"reading the client CA (-tls-client-ca)", "none.pem"}},
		{"key of another certificate", TLS{CertFile: good.CertFile, KeyFile: other.KeyFile, ClientCAFile: ca.CertFile},
			[]string{"the key in " + other.KeyFile + " (-tls-key) is not the key of the certificate in " + good.CertFile}},
		{"a key as the certificate", TLS{CertFile: good.KeyFile, KeyFile: good.KeyFile, ClientCAFile: ca.CertFile},
			[]string{good.KeyFile + " (-tls-cert) holds no PEM certificate"}},
		{"a key as the client CA", TLS{CertFile: good.CertFile, KeyFile: good.KeyFile, ClientCAFile: good.KeyFile},
			[]string{good.KeyFile + " (-tls-client-ca) holds no PEM certificate"}},
		{"expired", opts(expired), []string{"the agent's certificate " + expired.CertFile + " (CN=old) expired on " + day(expired.Cert.NotAfter),
			"valid from " + expired.Cert.NotBefore.UTC().Format(time.DateTime)}},
		{"not yet valid", opts(future), []string{"the agent's certificate " + future.CertFile + " (CN=future) is not valid yet",
			"valid from " + future.Cert.NotBefore.UTC().Format(time.DateTime), "check this host's clock"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loadServerTLS(tc.o, time.Now())
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the error does not say %q:\n%v", w, err)
				}
			}
		})
	}
	s, err := loadServerTLS(opts(good), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if s.leaf.Subject.CommonName != "storage-1" || s.config.MinVersion != 0x0304 {
		t.Errorf("loaded %v, min version %x", s.leaf.Subject, s.config.MinVersion)
	}
}

func TestRunRefusesListenWithoutTLSFiles(t *testing.T) {
	dir := t.TempDir()
	err := Run(t.Context(), Options{Socket: filepath.Join(dir, "a", "agent.sock"), Stderr: os.Stderr, TLS: TLS{Listen: "127.0.0.1:0"}})
	if err == nil || !strings.Contains(err.Error(), "-listen serves TCP over mutual TLS only: it needs -tls-cert, -tls-key and -tls-client-ca") {
		t.Fatalf("Run: %v", err)
	}
}

func TestAllowedByCNOrDNSName(t *testing.T) {
	dir := t.TempDir()
	ca := pki.NewCA(t, dir, "ca")
	allow := []string{"operator", "ci.example"}
	for _, tc := range []struct {
		cert pki.Pair
		want string // "" when allowed
	}{
		{ca.Client(t, "operator"), ""},
		{ca.Client(t, "someone", pki.DNSNames("x.example", "ci.example")), ""},
		{ca.Client(t, "someone-else", pki.DNSNames("x.example")), "it holds the names someone-else, x.example, none of which is in the agent's -tls-allow-name list (operator, ci.example)"},
		{ca.Client(t, ""), "it holds the names (none), none of which"},
	} {
		err := allowed(tc.cert.Cert, allow)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v: %v", tc.cert.Cert.Subject, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%v: %v, want %q", tc.cert.Cert.Subject, err, tc.want)
		}
	}
}
