package state

import (
	"context"
	"crypto/tls"
	"strings"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/state/etcdtest"
)

// TLS that fails is said as such, naming what failed, rather than as etcd
// not answering in time.
func TestEtcdTLSProblemsAreSaid(t *testing.T) {
	certs, other := etcdtest.NewCerts(t), etcdtest.NewCerts(t)
	srv := etcdtest.StartWith(t, etcdtest.Options{Certs: certs, ClientCertRequired: true})
	for _, tc := range []struct {
		name string
		opts EtcdOptions
		want []string
	}{
		{"the right CA and certificate", EtcdOptions{CAFile: certs.CA, CertFile: certs.ClientCert, KeyFile: certs.ClientKey}, nil},
		{"another CA", EtcdOptions{CAFile: other.CA, CertFile: certs.ClientCert, KeyFile: certs.ClientKey},
			[]string{"signed by unknown authority", other.CA}},
		{"no client certificate", EtcdOptions{CAFile: certs.CA},
			[]string{"requires a client certificate", "cert_file"}},
		{"a client certificate of another CA", EtcdOptions{CAFile: certs.CA, CertFile: other.ClientCert, KeyFile: other.ClientKey},
			[]string{"refused the client certificate", other.ClientCert}},
		{"https without a CA", EtcdOptions{},
			[]string{"signed by unknown authority", "ca_file"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.opts
			o.Endpoints, o.Prefix, o.DialTimeout = []string{srv.URL}, "/tls", 2*time.Second
			e, err := NewEtcd(context.Background(), o)
			if err == nil {
				defer e.Close()
				err = e.RefreshState()
			}
			t.Logf("%v", err)
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the error does not say %q:\n%v", w, err)
				}
			}
			if strings.Contains(err.Error(), "did not answer in time") {
				t.Errorf("a TLS failure said as etcd not answering:\n%v", err)
			}
		})
	}
}

// A password sent without TLS is warned of; with TLS, or without a
// password, nothing is.
func TestEtcdWarnsOfAPasswordWithoutTLS(t *testing.T) {
	for _, tc := range []struct {
		endpoint string
		opts     EtcdOptions
		want     string
	}{
		{"http://127.0.0.1:2379", EtcdOptions{Username: "root", Password: "pw"}, `user "root" is sent unencrypted to http://127.0.0.1:2379`},
		{"127.0.0.1:2379", EtcdOptions{Username: "root", Password: "pw"}, "sent unencrypted to 127.0.0.1:2379"},
		{"http://127.0.0.1:2379", EtcdOptions{Username: "root", Password: "pw", CAFile: "ca.pem"}, "whatever the tls block says"},
		{"https://127.0.0.1:2379", EtcdOptions{Username: "root", Password: "pw"}, ""},
		{"127.0.0.1:2379", EtcdOptions{Username: "root", Password: "pw", CAFile: "ca.pem"}, ""},
		{"http://127.0.0.1:2379", EtcdOptions{}, ""},
	} {
		e := &Etcd{opts: tc.opts}
		e.opts.Endpoints = []string{tc.endpoint}
		if tc.opts.CAFile != "" {
			e.tls = &tls.Config{}
		}
		w := strings.Join(e.Warnings(), "\n")
		if (tc.want == "") != (w == "") || !strings.Contains(w, tc.want) {
			t.Errorf("%s %+v: warnings %q, want %q", tc.endpoint, tc.opts, w, tc.want)
		}
		if strings.Contains(w, "pw") {
			t.Errorf("the warning shows the password: %s", w)
		}
	}
}
