package client

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"time"
)

// Problem is what kept DialRemote from an agent.
type Problem int

const (
	// Unreachable: nothing answers at the address (refused, no route,
	// no answer in time), or it said nothing after the handshake.
	Unreachable Problem = iota + 1
	// NotTLS: something answers at the address, but not with TLS.
	NotTLS
	// UnknownAuthority: the agent's certificate is not signed by our CA.
	UnknownAuthority
	// WrongName: the agent's certificate does not hold the name dialled.
	WrongName
	// AgentCertificate: the agent's certificate is expired, not yet
	// valid, or not for a server.
	AgentCertificate
	// Refused: the agent refused our certificate.
	Refused
	// LocalFiles: our CA, certificate or key file cannot be used.
	LocalFiles
)

// RemoteError is why DialRemote could not talk to the agent at Address.
type RemoteError struct {
	Address string
	Problem Problem
	Remote  Remote // the files, for the words
	Err     error
}

func (e *RemoteError) Unwrap() error { return e.Err }

func (e *RemoteError) Error() string {
	switch e.Problem {
	case Unreachable:
		return fmt.Sprintf("no rdmaform agent answers at %s: %s: check that the agent runs there with -listen=%s and that the host is reachable", e.Address, reachWords(e.Err), e.Address)
	case NotTLS:
		return fmt.Sprintf("%s does not speak TLS (%v): it is not an rdmaform agent's -listen address, which serves mutual TLS only", e.Address, e.Err)
	case UnknownAuthority:
		var u x509.UnknownAuthorityError
		errors.As(e.Err, &u)
		return fmt.Sprintf("the agent at %s presented a certificate (%s) not signed by the CA in %s: give the CA that signed the agents' certificates (tls { ca_file }, or -tls-ca), or give the agent a certificate signed by this one", e.Address, certName(u.Cert), orUnknown(e.Remote.CAFile))
	case WrongName:
		var h x509.HostnameError
		errors.As(e.Err, &h)
		return fmt.Sprintf("the agent at %s presented a certificate for %s, not for %q: make its certificate with %q in its subject alternative names, or give a name it holds as the server name (tls { server_name }, or -tls-server-name)", e.Address, certNames(h.Certificate), h.Host, h.Host)
	case AgentCertificate:
		var inv x509.CertificateInvalidError
		if errors.As(e.Err, &inv) && inv.Reason == x509.Expired {
			return fmt.Sprintf("the agent at %s presented a certificate (%s) that is expired or not yet valid (valid from %s to %s): give the agent a new one",
				e.Address, certName(inv.Cert), inv.Cert.NotBefore.UTC().Format(time.DateOnly), inv.Cert.NotAfter.UTC().Format(time.DateOnly))
		}
		return fmt.Sprintf("the agent at %s presented a certificate we cannot accept: %v", e.Address, e.Err)
	case Refused:
		return fmt.Sprintf("the agent at %s refused our certificate (%s): %s", e.Address, orUnknown(e.Remote.CertFile), refusalWords(remoteAlert(e.Err)))
	case LocalFiles:
		return fmt.Sprintf("cannot reach the agent at %s with these TLS files: %v", e.Address, e.Err)
	}
	return fmt.Sprintf("agent at %s: %v", e.Address, e.Err)
}

// reachWords says why nothing answered, without the dialler's syntax.
func reachWords(err error) string {
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused (nothing listens there)"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "no route to the host"
	case errors.Is(err, context.DeadlineExceeded):
		return "no answer in time"
	}
	var to interface{ Timeout() bool }
	if errors.As(err, &to) && to.Timeout() {
		return "no answer in time"
	}
	return err.Error()
}

// refusalWords says what the agent's alert means for our certificate.
func refusalWords(alert string) string {
	switch alert {
	case "tls: unknown certificate authority":
		return "it is not signed by the agent's client CA (-tls-client-ca): use a certificate that CA signed"
	case "tls: expired certificate":
		return "the agent says it is expired or not yet valid: make a new one"
	case "tls: certificate required":
		return "the agent requires a client certificate"
	case "tls: bad certificate":
		return "it is not in the agent's allow-list (-tls-allow-name), or not for a client; the agent's log says why"
	}
	return strings.TrimPrefix(alert, "tls: ") + "; the agent's log says why"
}

func certName(c *x509.Certificate) string {
	if c == nil {
		return "no certificate"
	}
	return c.Subject.String()
}

// certNames lists the names a certificate holds.
func certNames(c *x509.Certificate) string {
	if c == nil {
		return "no names"
	}
	var names []string
	names = append(names, c.DNSNames...)
	for _, ip := range c.IPAddresses {
		names = append(names, ip.String())
	}
	if len(names) == 0 {
		return c.Subject.String() + " (no subject alternative names)"
	}
	return strings.Join(names, ", ")
}

func orUnknown(s string) string {
	if s == "" {
		return "?"
	}
	return s
}

// IsUnreachable reports whether err says no agent answered at a remote
// address (as opposed to an agent that answered and refused us, or ours
// that we could not load).
func IsUnreachable(err error) bool {
	var re *RemoteError
	return errors.As(err, &re) && re.Problem == Unreachable
}
