package client

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"sync"
)

// RemoteFiles dials remote agents, reading each set of TLS files (CA,
// certificate, key) once: a fabric's agents are mostly reached with the
// same files, not worth reading and parsing again for each of a hundred
// agents. Keep one for one run: files changed after it read them are not
// read again.
type RemoteFiles struct {
	mu     sync.Mutex
	loaded map[[3]string]*loadedFiles
}

type loadedFiles struct {
	once  sync.Once
	roots *x509.CertPool
	pair  *tls.Certificate
	err   error
}

// Dial is DialRemote, with r's files read once for all of f's dials.
func (f *RemoteFiles) Dial(ctx context.Context, r Remote) (*Client, error) {
	return dialRemote(ctx, r, f)
}

// load reads the files once; dials with the same files at once wait for
// that one reading. A failure is kept too: every agent reached with
// those files reports it.
func (f *RemoteFiles) load(caFile, certFile, keyFile string) (*x509.CertPool, *tls.Certificate, error) {
	key := [3]string{caFile, certFile, keyFile}
	f.mu.Lock()
	if f.loaded == nil {
		f.loaded = map[[3]string]*loadedFiles{}
	}
	l := f.loaded[key]
	if l == nil {
		l = &loadedFiles{}
		f.loaded[key] = l
	}
	f.mu.Unlock()
	l.once.Do(func() { l.roots, l.pair, l.err = loadRemoteFiles(caFile, certFile, keyFile) })
	return l.roots, l.pair, l.err
}
