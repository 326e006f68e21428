// Package pki makes certificates for tests of the agent's mutual TLS: a
// CA, server and client certificates signed by it (ECDSA P-256, with
// crypto/x509), written as PEM files to a directory, with options for
// the names they hold and their validity. It is for tests only: its keys
// are fresh and its files are in the test's temporary directory.
package pki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// CA is a certificate authority whose files are in a directory.
type CA struct {
	Cert     *x509.Certificate
	Key      *ecdsa.PrivateKey
	CertFile string // NAME.pem
	KeyFile  string // NAME-key.pem
	dir      string
}

// Pair is an issued certificate and its files.
type Pair struct {
	Cert     *x509.Certificate
	CertFile string // NAME.pem
	KeyFile  string // NAME-key.pem
}

// Option changes a certificate before it is signed.
type Option func(*x509.Certificate)

// IPs adds IP addresses to the subject alternative names.
func IPs(ips ...string) Option {
	return func(c *x509.Certificate) {
		for _, s := range ips {
			c.IPAddresses = append(c.IPAddresses, net.ParseIP(s))
		}
	}
}

// DNSNames adds DNS names to the subject alternative names.
func DNSNames(names ...string) Option {
	return func(c *x509.Certificate) { c.DNSNames = append(c.DNSNames, names...) }
}

// Expired makes a certificate that was valid for a day, ending an hour ago.
func Expired() Option {
	return func(c *x509.Certificate) {
		c.NotAfter = time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
		c.NotBefore = c.NotAfter.Add(-24 * time.Hour)
	}
}

// NotYetValid makes a certificate that becomes valid in a day.
func NotYetValid() Option {
	return func(c *x509.Certificate) {
		c.NotBefore = time.Now().Add(24 * time.Hour).UTC().Truncate(time.Second)
		c.NotAfter = c.NotBefore.Add(365 * 24 * time.Hour)
	}
}

// ValidFor makes a certificate valid from an hour ago for d.
func ValidFor(d time.Duration) Option {
	return func(c *x509.Certificate) {
		c.NotBefore = time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
		c.NotAfter = c.NotBefore.Add(d)
	}
}

// NewCA makes a CA named name (its CN, and its files' names) in dir.
func NewCA(t testing.TB, dir, name string, opts ...Option) *CA {
	t.Helper()
	key := newKey(t)
	tmpl := template(name, opts)
	tmpl.IsCA = true
	tmpl.BasicConstraintsValid = true
	tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature
	cert := sign(t, tmpl, tmpl, &key.PublicKey, key)
	ca := &CA{Cert: cert, Key: key, dir: dir}
	ca.CertFile, ca.KeyFile = write(t, dir, name, cert, key)
	return ca
}

// Server issues a certificate for an agent (server authentication) with
// CN name, in the CA's directory as name.pem and name-key.pem. Give it
// the addresses clients dial with IPs or DNSNames.
func (ca *CA) Server(t testing.TB, name string, opts ...Option) Pair {
	t.Helper()
	return ca.issue(t, name, x509.ExtKeyUsageServerAuth, opts)
}

// Client issues a certificate for a client (client authentication) with
// CN name.
func (ca *CA) Client(t testing.TB, name string, opts ...Option) Pair {
	t.Helper()
	return ca.issue(t, name, x509.ExtKeyUsageClientAuth, opts)
}

func (ca *CA) issue(t testing.TB, name string, usage x509.ExtKeyUsage, opts []Option) Pair {
	t.Helper()
	key := newKey(t)
	tmpl := template(name, opts)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{usage}
	cert := sign(t, tmpl, ca.Cert, &key.PublicKey, ca.Key)
	certFile, keyFile := write(t, ca.dir, name, cert, key)
	return Pair{Cert: cert, CertFile: certFile, KeyFile: keyFile}
}

// template is a certificate valid from an hour ago for a year, unless an
// option says otherwise.
func template(cn string, opts []Option) *x509.Certificate {
	serial, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	notBefore := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	c := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    notBefore,
		NotAfter:     notBefore.Add(365 * 24 * time.Hour),
	}
	for _, o := range opts {
		o(c)
	}
	return c
}

func newKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatalf("pki: generating a key: %v", err)
	}
	return key
}

func sign(t testing.TB, tmpl, parent *x509.Certificate, pub *ecdsa.PublicKey, signer *ecdsa.PrivateKey) *x509.Certificate {
	t.Helper()
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, pub, signer)
	if err != nil {
		t.Fatalf("pki: signing %s: %v", tmpl.Subject.CommonName, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatalf("pki: %v", err)
	}
	return cert
}

// write stores cert as dir/name.pem and key as dir/name-key.pem (0600).
func write(t testing.TB, dir, name string, cert *x509.Certificate, key *ecdsa.PrivateKey) (certFile, keyFile string) {
	t.Helper()
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatalf("pki: %v", err)
	}
	certFile, keyFile = filepath.Join(dir, name+".pem"), filepath.Join(dir, name+"-key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}), 0o644); err != nil {
		t.Fatalf("pki: %v", err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatalf("pki: %v", err)
	}
	return certFile, keyFile
}
