package state

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"
)

// A TLS handshake gRPC fails (etcd's certificate signed by an authority
// not trusted, a client certificate missing or refused) only shows as a
// request that timed out, "etcd did not answer in time". Until etcd has
// answered once, a request that timed out or found no server is followed
// by a TLS handshake of our own with each TLS endpoint, whose error says
// what failed.

// tlsProbeTimeout bounds that handshake, and the read after it that
// receives a TLS 1.3 server's refusal of the client's certificate.
const tlsProbeTimeout = 2 * time.Second

// TLSError is a TLS handshake with etcd that failed, said in words: what
// failed and what to set.
type TLSError struct {
	Endpoint string
	Problem  string
	Err      error // the handshake's own error
}

func (e *TLSError) Error() string {
	return fmt.Sprintf("TLS with etcd at %s failed: %s (%v)", e.Endpoint, e.Problem, e.Err)
}

func (e *TLSError) Unwrap() error { return e.Err }

// tlsEndpoint returns the address and server name of endpoint ep, and
// whether the client speaks TLS to it (as clientv3 decides: https always,
// http never, an address without a scheme when TLS files are given).
func tlsEndpoint(ep string, tlsFiles bool) (addr, serverName string, secure bool) {
	addr, secure = ep, tlsFiles
	if strings.Contains(ep, "://") {
		u, err := url.Parse(ep)
		if err != nil {
			return ep, "", false
		}
		addr, secure = u.Host, u.Scheme == "https" || (u.Scheme != "http" && tlsFiles)
		if u.Scheme != "http" && u.Scheme != "https" {
			secure = false // unix sockets: not probed
		}
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	return addr, host, secure
}

// probeTLS shakes hands with each TLS endpoint and returns the first
// failure that is TLS's, or nil.
func (e *Etcd) probeTLS() error {
	for _, ep := range e.opts.Endpoints {
		addr, serverName, secure := tlsEndpoint(ep, e.tls != nil)
		if !secure {
			continue
		}
		cfg := &tls.Config{}
		if e.tls != nil {
			cfg = e.tls.Clone()
		}
		if cfg.ServerName == "" {
			cfg.ServerName = serverName
		}
		ctx, cancel := context.WithTimeout(context.Background(), tlsProbeTimeout)
		conn, err := (&tls.Dialer{Config: cfg}).DialContext(ctx, "tcp", addr)
		cancel()
		if err == nil {
			conn.SetReadDeadline(time.Now().Add(tlsProbeTimeout))
			_, err = conn.Read(make([]byte, 1))
			conn.Close()
		}
		if problem := e.tlsProblem(err); problem != "" {
			return &TLSError{Endpoint: ep, Problem: problem, Err: err}
		}
	}
	return nil
}

// tlsProblem says what a handshake's error means, "" for one that is not
// TLS's (none, a timeout, a refused connection).
func (e *Etcd) tlsProblem(err error) string {
	var unknown x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	var record tls.RecordHeaderError
	remote := ""
	if err != nil {
		_, remote, _ = strings.Cut(err.Error(), "remote error: tls: ")
	}
	switch {
	case err == nil:
		return ""
	case errors.As(err, &unknown) && e.opts.CAFile != "":
		return fmt.Sprintf("etcd's server certificate is signed by unknown authority: the ca_file %s did not sign it; set ca_file, in the etcd backend's tls block, to the authority that signed etcd's --cert-file", e.opts.CAFile)
	case errors.As(err, &unknown):
		return "etcd's server certificate is signed by unknown authority: no ca_file is set, so only the system's authorities are trusted; set ca_file, in the etcd backend's tls block, to the authority that signed etcd's --cert-file"
	case errors.As(err, &host):
		return fmt.Sprintf("etcd's server certificate is not valid for %s; connect by a name or address the certificate holds", host.Host)
	case errors.As(err, &invalid):
		return "etcd's server certificate is not valid (expired, or not for a server)"
	case errors.As(err, &record):
		return "etcd does not speak TLS there: use an http:// endpoint, or start etcd with --cert-file and --key-file"
	case remote == "":
		return ""
	case e.opts.CertFile == "" && (remote == "certificate required" || remote == "bad certificate"):
		return "etcd requires a client certificate, and none was given: set cert_file and key_file in the etcd backend's tls block"
	case e.opts.CertFile != "" && strings.Contains(remote, "certificate"):
		return fmt.Sprintf("etcd refused the client certificate %s: it must be signed by an authority etcd trusts (its --trusted-ca-file), and be valid now", e.opts.CertFile)
	}
	return "etcd ended the TLS handshake"
}

// Warnings are what the backend's settings put at risk, for the CLI to
// warn of: a password etcd receives over a connection without TLS.
func (e *Etcd) Warnings() []string {
	if e.opts.Password == "" {
		return nil
	}
	var plain []string
	for _, ep := range e.opts.Endpoints {
		if _, _, secure := tlsEndpoint(ep, e.tls != nil); !secure {
			plain = append(plain, ep)
		}
	}
	if len(plain) == 0 {
		return nil
	}
	note := ""
	if e.tls != nil {
		note = " (an http:// endpoint connects without TLS, whatever the tls block says)"
	}
	return []string{fmt.Sprintf("The etcd password of user %q is sent unencrypted to %s%s: anyone who can see the traffic can read it. Use https:// endpoints, with ca_file in the etcd backend's tls block.", e.opts.Username, strings.Join(plain, ", "), note)}
}
