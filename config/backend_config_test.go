package config

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
)

// loadWithOverrides loads the configuration src with the -backend-config
// items merged in, as init does, returning the backend and the
// diagnostics as the user sees them.
func loadWithOverrides(t *testing.T, src string, items ...string) (*Backend, hcl.Diagnostics, string) {
	t.Helper()
	t.Setenv(EnvEtcdUsername, "")
	t.Setenv(EnvEtcdPassword, "")
	dir := writeDir(t, map[string]string{"main.rdma.hcl": src})
	l := NewLoader()
	over, diags := l.ParseBackendConfig(items)
	var be *Backend
	if !diags.HasErrors() {
		s, _, d := l.LoadBackend(dir)
		diags = append(diags, d...)
		if !d.HasErrors() {
			var d hcl.Diagnostics
			be, d = s.Backend.WithOverrides(over)
			diags = append(diags, d...)
		}
	}
	var buf bytes.Buffer
	l.WriteDiagnostics(&buf, diags, false, 1000)
	return be, diags, buf.String()
}

// writeFile writes a -backend-config file and returns its path.
func writeFile(t *testing.T, name, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

const emptyEtcdBlock = "rdmaform {\n  backend \"etcd\" {}\n}\n"

// An empty backend block is valid configuration (validate reads it
// without init's values), completed by -backend-config: a file, then
// key=value options, a later one replacing an earlier one, all replacing
// the block's arguments.
func TestBackendConfigMergesOverTheBlock(t *testing.T) {
	if _, diags := LoadBackend(writeDir(t, map[string]string{"main.rdma.hcl": emptyEtcdBlock})); diags.HasErrors() {
		t.Fatalf("an empty etcd block: %v", diags)
	}
	file := writeFile(t, "etcd.hcl", "endpoints = [\"http://a:2379\", \"http://b:2379\"]\nprefix = \"from-file\"\nusername = \"ops\"\n")
	src := "rdmaform {\n  backend \"etcd\" {\n    prefix = \"from-block\"\n    dial_timeout = \"3s\"\n  }\n}\n"
	be, diags, text := loadWithOverrides(t, src, file, "prefix=from-flag", "password=pw1", "password=pw2")
	if diags.HasErrors() {
		t.Fatal(text)
	}
	want := []string{"http://a:2379", "http://b:2379"}
	if !reflect.DeepEqual(be.Endpoints, want) || be.Prefix != "from-flag" || be.Username != "ops" || be.Password != "pw2" || be.DialTimeout != 3*time.Second {
		t.Errorf("backend = %+v", be)
	}
	be, diags, text = loadWithOverrides(t, emptyEtcdBlock, `endpoints=["http://c:2379"]`, "username=u", "password=p")
	if diags.HasErrors() || !reflect.DeepEqual(be.Endpoints, []string{"http://c:2379"}) || be.Username != "u" || be.Password != "p" {
		t.Errorf("key=value endpoints: %+v\n%s", be, text)
	}
}

// What -backend-config gets wrong is an error saying where: an unknown
// argument (with the argument it may have meant), an error in the file
// (file:line:col), an endpoints value that is not a list, and a backend
// left without endpoints.
func TestBackendConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		src   string
		items func(t *testing.T) []string
		want  []string
	}{
		{"unknown key in a file", emptyEtcdBlock, func(t *testing.T) []string {
			return []string{writeFile(t, "etcd.hcl", "endpoints = [\"http://a:2379\"]\n\nuser_name = \"ops\"\n")}
		}, []string{"Invalid backend configuration argument", `argument "user_name"`, `Did you mean "username"?`, "etcd.hcl:3:1"}},
		{"unknown key on the command line", emptyEtcdBlock, func(*testing.T) []string {
			return []string{`endpoints=["http://a:2379"]`, "pasword=x"}
		}, []string{`argument "pasword" given to init's -backend-config is not expected for the "etcd" backend`, `Did you mean "password"?`}},
		{"syntax error in a file", emptyEtcdBlock, func(t *testing.T) []string {
			return []string{writeFile(t, "etcd.hcl", "prefix = \"a\"\nendpoints = [\"http://a:2379\"\n")}
		}, []string{"etcd.hcl:2:13"}},
		{"block in a file", emptyEtcdBlock, func(t *testing.T) []string {
			return []string{writeFile(t, "etcd.hcl", "tls {\n}\n")}
		}, []string{`Unexpected "tls" block`, "etcd.hcl:1:1"}},
		{"missing file", emptyEtcdBlock, func(*testing.T) []string {
			return []string{"/nonexistent/etcd.hcl"}
		}, []string{"/nonexistent/etcd.hcl"}},
		{"endpoints not a list", emptyEtcdBlock, func(*testing.T) []string {
			return []string{"endpoints=http://a:2379"}
		}, []string{`endpoints is a list`, `-backend-config='endpoints=["http://127.0.0.1:2379"]'`}},
		{"no endpoints anywhere", emptyEtcdBlock, func(*testing.T) []string {
			return []string{"prefix=p"}
		}, []string{"No etcd endpoints", "main.rdma.hcl:2:3", "-backend-config='endpoints="}},
		{"not an argument name", emptyEtcdBlock, func(*testing.T) []string {
			return []string{"=x"}
		}, []string{"must be an argument name"}},
		{"path of a local backend", "rdmaform {\n  backend \"local\" {}\n}\n", func(*testing.T) []string {
			return []string{"paht=x.rdmastate"}
		}, []string{`argument "paht"`, `"local" backend`, `Did you mean "path"?`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags, text := loadWithOverrides(t, tc.src, tc.items(t)...)
			if !diags.HasErrors() {
				t.Fatalf("no error; want %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("diagnostics do not say %q:\n%s", w, text)
				}
			}
		})
	}
}

// A username without a password, or the reverse, whatever their sources,
// is an error saying where the one given is; a password's line is not
// shown, the password being on it.
func TestBackendCredentialsComeInPairs(t *testing.T) {
	block := func(attrs string) string {
		return "rdmaform {\n  backend \"etcd\" {\n    endpoints = [\"http://a:2379\"]\n" + attrs + "  }\n}\n"
	}
	_, diags, text := loadWithOverrides(t, block("    username = \"ops\"\n"))
	if !diags.HasErrors() || !strings.Contains(text, "Incomplete etcd credentials") || !strings.Contains(text, "main.rdma.hcl:4:5") || !strings.Contains(text, "has a username but no password") {
		t.Errorf("username alone:\n%s", text)
	}
	_, diags, text = loadWithOverrides(t, block("    password = \"hunter2-secret\"\n"))
	if !diags.HasErrors() || !strings.Contains(text, "main.rdma.hcl:4:5 but no username") || strings.Contains(text, "hunter2-secret") {
		t.Errorf("password alone:\n%s", text)
	}
	file := writeFile(t, "creds.hcl", "\npassword = \"hunter2-secret\"\n")
	_, diags, text = loadWithOverrides(t, block(""), file)
	if !diags.HasErrors() || !strings.Contains(text, "creds.hcl:2:1 but no username") || strings.Contains(text, "hunter2-secret") {
		t.Errorf("password alone in a -backend-config file:\n%s", text)
	}
	file = writeFile(t, "creds.hcl", "password = [\"hunter2-secret\"]\n")
	_, diags, text = loadWithOverrides(t, block("    username = \"ops\"\n"), file)
	if !diags.HasErrors() || !strings.Contains(text, `attribute "password" at `) || strings.Contains(text, "hunter2-secret") {
		t.Errorf("password of the wrong type:\n%s", text)
	}
	// Split between the block and -backend-config: complete.
	be, diags, text := loadWithOverrides(t, block("    username = \"ops\"\n"), "password=pw")
	if diags.HasErrors() || be.Username != "ops" || be.Password != "pw" {
		t.Errorf("username in the block, password from init: %+v\n%s", be, text)
	}
}

// The environment stands in for an unset username or password, as in
// Terraform's etcdv3 backend, and completes a pair.
func TestBackendCredentialsFromEnvironment(t *testing.T) {
	t.Setenv(EnvEtcdUsername, "env-user")
	t.Setenv(EnvEtcdPassword, "env-pw")
	if u, p := EtcdCredentials("", ""); u != "env-user" || p != "env-pw" {
		t.Errorf("EtcdCredentials from the environment = %q %q", u, p)
	}
	if u, p := EtcdCredentials("ops", "pw"); u != "ops" || p != "pw" {
		t.Errorf("EtcdCredentials configured = %q %q", u, p)
	}
	dir := writeDir(t, map[string]string{"main.rdma.hcl": "rdmaform {\n  backend \"etcd\" {\n    endpoints = [\"http://a:2379\"]\n    username = \"ops\"\n  }\n}\n"})
	s, diags := LoadBackend(dir)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if _, diags := s.Backend.WithOverrides(nil); diags.HasErrors() {
		t.Errorf("a username with $%s: %v", EnvEtcdPassword, diags)
	}
	t.Setenv(EnvEtcdPassword, "")
	if _, diags := s.Backend.WithOverrides(nil); !diags.HasErrors() {
		t.Error("a username without a password anywhere was accepted")
	}
}

// What init records of -backend-config (OverrideValues) is read back by
// later commands (OverrideAttrs) to the same backend; the password is not
// among the recorded values.
func TestBackendConfigValuesRoundTrip(t *testing.T) {
	t.Setenv(EnvEtcdUsername, "")
	t.Setenv(EnvEtcdPassword, "")
	l := NewLoader()
	over, diags := l.ParseBackendConfig([]string{`endpoints=["http://a:2379","http://b:2379"]`, "prefix=p", "username=u", "password=secret"})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	vals := OverrideValues(over)
	if _, ok := vals["password"]; ok || len(vals) != 3 {
		t.Fatalf("recorded values = %v", vals)
	}
	// As JSON decodes them: lists as []any.
	decoded := map[string]any{"endpoints": []any{"http://a:2379", "http://b:2379"}, "prefix": "p", "username": "u", "password": "secret"}
	s, diags := LoadBackend(writeDir(t, map[string]string{"main.rdma.hcl": emptyEtcdBlock}))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	a, d1 := s.Backend.WithOverrides(over)
	b, d2 := s.Backend.WithOverrides(OverrideAttrs(decoded, ".rdmaform/backend.json"))
	if d1.HasErrors() || d2.HasErrors() || !reflect.DeepEqual(a.Endpoints, b.Endpoints) || a.Prefix != b.Prefix || a.Username != b.Username || a.Password != b.Password {
		t.Errorf("from the options %+v (%v), from the record %+v (%v)", a, d1, b, d2)
	}
}
