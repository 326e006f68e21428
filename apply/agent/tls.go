package agent

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"google.golang.org/grpc/credentials"
)

// TLS is how the agent serves its API over TCP: with mutual TLS only
// (TLS 1.3, a client certificate that chains to ClientCAFile, and, when
// AllowNames is set, one of those names as its CN or a DNS name). There
// is no plaintext TCP: the API carries objects' private data, and over
// TCP the peer's certificate is the only proof of who it is.
type TLS struct {
	Listen       string // HOST:PORT; "" serves the unix socket only
	CertFile     string // the agent's certificate (PEM, the leaf first)
	KeyFile      string // its key
	ClientCAFile string // the CA (PEM) client certificates must chain to
	AllowNames   []string
}

// serverTLS is the agent's loaded TLS configuration and its certificate.
type serverTLS struct {
	config *tls.Config
	leaf   *x509.Certificate
}

// loadServerTLS reads the agent's certificate, key and client CA, and
// refuses, naming the file, what would fail every handshake: an
// unreadable file, a key of another certificate, a certificate out of
// its validity dates.
func loadServerTLS(o TLS, now time.Time) (*serverTLS, error) {
	certPEM, err := os.ReadFile(o.CertFile)
	if err != nil {
		return nil, fmt.Errorf("reading the agent's certificate (-tls-cert): %w", err)
	}
	keyPEM, err := os.ReadFile(o.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("reading the agent's key (-tls-key): %w", err)
	}
	caPEM, err := os.ReadFile(o.ClientCAFile)
	if err != nil {
		return nil, fmt.Errorf("reading the client CA (-tls-client-ca): %w", err)
	}
	leaf, err := firstCertificate(o.CertFile, certPEM)
	if err != nil {
		return nil, err
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		if strings.Contains(err.Error(), "does not match") {
			return nil, fmt.Errorf("the key in %s (-tls-key) is not the key of the certificate in %s (-tls-cert): give the key made with that certificate", o.KeyFile, o.CertFile)
		}
		return nil, fmt.Errorf("loading the key %s (-tls-key) with the certificate %s: %w", o.KeyFile, o.CertFile, err)
	}
	if err := checkValidity(o.CertFile, leaf, now); err != nil {
		return nil, err
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPEM) {
		return nil, fmt.Errorf("%s (-tls-client-ca) holds no PEM certificate: give the CA that signs the clients' certificates", o.ClientCAFile)
	}
	allow := slices.Clone(o.AllowNames)
	return &serverTLS{leaf: leaf, config: &tls.Config{
		MinVersion:   tls.VersionTLS13,
		Certificates: []tls.Certificate{pair},
		ClientAuth:   tls.RequireAndVerifyClientCert,
		ClientCAs:    roots,
		// Called only after the chain was verified against ClientCAs.
		VerifyPeerCertificate: func(_ [][]byte, chains [][]*x509.Certificate) error {
			if len(allow) == 0 || len(chains) == 0 {
				return nil
			}
			return allowed(chains[0][0], allow)
		},
	}}, nil
}

// firstCertificate parses the first certificate of a PEM file.
func firstCertificate(file string, data []byte) (*x509.Certificate, error) {
	for {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			return nil, fmt.Errorf("%s (-tls-cert) holds no PEM certificate", file)
		}
		if b.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%s (-tls-cert): %w", file, err)
		}
		return c, nil
	}
}

// checkValidity refuses a certificate outside its dates: every client
// would refuse it, each with a less helpful word.
func checkValidity(file string, c *x509.Certificate, now time.Time) error {
	dates := fmt.Sprintf("valid from %s to %s", c.NotBefore.UTC().Format(time.DateTime+" MST"), c.NotAfter.UTC().Format(time.DateTime+" MST"))
	switch {
	case now.After(c.NotAfter):
		return fmt.Errorf("the agent's certificate %s (%s) expired on %s (%s): make a new one", file, c.Subject, c.NotAfter.UTC().Format(time.DateOnly), dates)
	case now.Before(c.NotBefore):
		return fmt.Errorf("the agent's certificate %s (%s) is not valid yet (%s): check this host's clock, or make one valid now", file, c.Subject, dates)
	}
	return nil
}

// errNotAllowed is a client certificate that chains to the client CA but
// holds none of the allowed names.
type errNotAllowed struct {
	names, allow []string // the certificate's CN and DNS names; the list
}

func (e *errNotAllowed) Error() string {
	return fmt.Sprintf("it holds the names %s, none of which is in the agent's -tls-allow-name list (%s)", strings.Join(e.names, ", "), strings.Join(e.allow, ", "))
}

// allowed reports whether c's CN or one of its DNS names is in allow.
func allowed(c *x509.Certificate, allow []string) error {
	var names []string
	for _, n := range append([]string{c.Subject.CommonName}, c.DNSNames...) {
		if n == "" {
			continue
		}
		if slices.Contains(allow, n) {
			return nil
		}
		names = append(names, n)
	}
	if len(names) == 0 {
		names = []string{"(none)"}
	}
	return &errNotAllowed{names: names, allow: allow}
}

// loggedTLS is the server's TLS credentials, logging each refused
// handshake with the peer and why, in words: gRPC itself only drops it.
type loggedTLS struct {
	credentials.TransportCredentials
	log *slog.Logger
}

func (l loggedTLS) ServerHandshake(raw net.Conn) (net.Conn, credentials.AuthInfo, error) {
	conn, info, err := l.TransportCredentials.ServerHandshake(raw)
	if err != nil {
		l.log.Warn("refused a TCP client: "+handshakeWords(raw.RemoteAddr().String(), err), "peer", raw.RemoteAddr().String(), "err", err)
	}
	return conn, info, err
}

func (l loggedTLS) Clone() credentials.TransportCredentials {
	return loggedTLS{TransportCredentials: l.TransportCredentials.Clone(), log: l.log}
}

// handshakeWords says why the handshake with peer failed.
func handshakeWords(peer string, err error) string {
	var unknown x509.UnknownAuthorityError
	var invalid x509.CertificateInvalidError
	var notAllowed *errNotAllowed
	var header tls.RecordHeaderError
	var opErr *net.OpError
	switch {
	case errors.As(err, &unknown):
		return fmt.Sprintf("client certificate from %s (%s) is not signed by the client CA", peer, certName(unknown.Cert))
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		return fmt.Sprintf("client certificate from %s (%s) is expired or not yet valid (valid from %s to %s)", peer, certName(invalid.Cert),
			invalid.Cert.NotBefore.UTC().Format(time.DateOnly), invalid.Cert.NotAfter.UTC().Format(time.DateOnly))
	case errors.As(err, &invalid):
		return fmt.Sprintf("client certificate from %s (%s) is not valid for a client: %v", peer, certName(invalid.Cert), invalid)
	case errors.As(err, &notAllowed):
		return fmt.Sprintf("client certificate from %s is signed by the client CA, but %s", peer, notAllowed)
	case errors.As(err, &header):
		return fmt.Sprintf("%s does not speak TLS (a plaintext client?): the agent serves TCP over mutual TLS only", peer)
	case strings.Contains(err.Error(), "unsupported versions"):
		return fmt.Sprintf("%s offered only TLS versions older than 1.3, which the agent requires", peer)
	case strings.Contains(err.Error(), "didn't provide a certificate"):
		return fmt.Sprintf("%s sent no client certificate: the agent requires one signed by its client CA", peer)
	case errors.As(err, &opErr) && opErr.Op == "remote error":
		return fmt.Sprintf("%s refused the agent's certificate (%v): does the client trust the CA that signed it, and is it for the name the client dialled?", peer, opErr.Err)
	case errors.Is(err, io.EOF), errors.Is(err, syscall.ECONNRESET):
		return fmt.Sprintf("%s closed the connection during the TLS handshake", peer)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Sprintf("%s did not finish the TLS handshake in time", peer)
	}
	return fmt.Sprintf("TLS handshake with %s failed: %v", peer, err)
}

func certName(c *x509.Certificate) string {
	if c == nil {
		return "no certificate"
	}
	return c.Subject.String()
}
