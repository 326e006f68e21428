package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
)

// writeDir writes files (name → content) into a fresh temporary directory.
func writeDir(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoadBackendEtcd(t *testing.T) {
	dir := writeDir(t, map[string]string{
		"main.rdma.hcl": `
rdmaform {
  required_version = ">= 0.1"
  backend "etcd" {
    endpoints    = ["http://127.0.0.1:2379"]
    prefix       = "rdmaform/prod"
    dial_timeout = "5s"
    tls {
      ca_file   = "ca.pem"
      cert_file = "c.pem"
      key_file  = "k.pem"
    }
  }
  agent {
    socket = "/run/rdmaform/agent.sock"
  }
}
listener "broken" {
  port = nosuchthing.at.all
}
`})
	s, diags := LoadBackend(dir)
	if diags.HasErrors() {
		t.Fatalf("LoadBackend: %v", diags)
	}
	b := s.Backend
	if len(s.RequiredVersions) != 1 || s.RequiredVersions[0].Constraint != ">= 0.1" || b == nil || b.Type != "etcd" || b.Prefix != "rdmaform/prod" ||
		len(b.Endpoints) != 1 || b.Endpoints[0] != "http://127.0.0.1:2379" || b.DialTimeout != 5*time.Second ||
		b.TLS == nil || b.TLS.CAFile != "ca.pem" || b.TLS.CertFile != "c.pem" || b.TLS.KeyFile != "k.pem" {
		t.Fatalf("settings = %+v, backend %+v", s, b)
	}
	if s.Agent == nil || s.Agent.Socket != "/run/rdmaform/agent.sock" {
		t.Fatalf("agent = %+v", s.Agent)
	}
	if b.DeclRange.Start.Line != 4 {
		t.Errorf("backend DeclRange = %v, want line 4", b.DeclRange)
	}
}

func TestLoadBackendDefaults(t *testing.T) {
	dir := writeDir(t, map[string]string{"a.rdma.hcl": `listener "x" {}`})
	s, diags := LoadBackend(dir)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if s.Backend != nil || s.Agent != nil || s.RequiredVersions != nil {
		t.Fatalf("settings = %+v, want zero", s)
	}
}

func TestLoadBackendErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
		line            int
	}{
		{"unknown type", `rdmaform {
  backend "s3" {}
}`, `Unsupported backend type: There is no backend named "s3"`, 2},
		{"bad duration", `rdmaform {
  backend "etcd" {
    endpoints = ["http://h:2379"]
    dial_timeout = "5 seconds"
  }
}`, `Invalid duration: "5 seconds" is not a duration`, 4},
		{"no endpoints", `rdmaform {
  backend "etcd" {
    endpoints = []
  }
}`, "No etcd endpoints", 3},
		{"duplicate backend", `rdmaform {
  backend "local" {}
}
rdmaform {
  backend "local" {}
}`, "Duplicate backend block: A backend block was already declared at ", 5},
		{"bad constraint", `rdmaform {
  required_version = "bananas"
}`, `Invalid required_version: "bananas" is not a version constraint`, 2},
		{"variables not allowed", `rdmaform {
  backend "local" { path = var.p }
}`, "Variables not allowed", 2},
		{"unknown attribute", `rdmaform {
  backend "local" { paht = "x" }
}`, `Unsupported argument: An argument named "paht" is not expected here. Did you mean "path"?`, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeDir(t, map[string]string{"main.rdma.hcl": tc.src})
			_, diags := LoadBackend(dir)
			if !diags.HasErrors() {
				t.Fatalf("no error; want %q", tc.want)
			}
			d := diags[0]
			if got := d.Summary + ": " + d.Detail; !strings.HasPrefix(got, tc.want) {
				t.Errorf("diagnostic = %q, want prefix %q", got, tc.want)
			}
			if d.Subject == nil || d.Subject.Start.Line != tc.line {
				t.Errorf("subject = %v, want line %d", d.Subject, tc.line)
			}
		})
	}
}

func TestLoadBackendRequiredVersion(t *testing.T) {
	dir := writeDir(t, map[string]string{"main.rdma.hcl": `rdmaform { required_version = ">= 9.0" }`})
	l := NewLoader()
	l.CoreVersion = "0.1.0"
	_, _, diags := l.LoadBackend(dir)
	if !diags.HasErrors() || !strings.Contains(diags[0].Detail, "requires rdmaform >= 9.0, but this is rdmaform 0.1.0") {
		t.Fatalf("diags = %v", diags)
	}
}

// An unmet required_version points at the constraint, so validate shows
// the file, line and source as for any other error.
func TestRequiredVersionErrorHasSource(t *testing.T) {
	dir := writeDir(t, map[string]string{"main.rdma.hcl": "listener \"a\" {\n  address = \"10.77.0.1\"\n  port    = 7471\n}\n\nrdmaform {\n  required_version = \">= 9.0\"\n}\n"})
	l := NewLoader()
	l.CoreVersion = "0.1.0"
	_, diags := l.Load(dir, VarInputs{})
	if len(diags) != 1 || diags[0].Summary != "Unsupported rdmaform version" {
		t.Fatalf("diags = %v", diags)
	}
	if s := diags[0].Subject; s == nil || s.Start.Line != 7 || s.Start.Column != 22 {
		t.Errorf("subject = %v, want line 7, column 22 (the constraint)", s)
	}
}

// As Terraform's terraform blocks, several rdmaform blocks may each set
// required_version, and every constraint is checked, each unmet one
// reported at its value; the backend and the agent stay one per
// configuration, and an argument given twice in one block is refused.
func TestRequiredVersionInSeveralBlocks(t *testing.T) {
	load := func(files map[string]string) hcl.Diagnostics {
		l := NewLoader()
		l.CoreVersion = "1.5.0"
		_, diags := l.Load(writeDir(t, files), VarInputs{})
		return diags
	}
	if diags := load(map[string]string{
		"versions.rdma.hcl": "rdmaform {\n  required_version = \">= 0.1\"\n}\n",
		"main.rdma.hcl":     "rdmaform {\n  required_version = \"< 2.0\"\n  agent {\n    socket = \"/run/a.sock\"\n  }\n}\n",
	}); len(diags) != 0 {
		t.Errorf("two constraints both met: %v", diags)
	}
	diags := load(map[string]string{
		"versions.rdma.hcl": "rdmaform {\n  required_version = \">= 0.1\"\n}\n",
		"main.rdma.hcl":     "rdmaform {\n  required_version = \"< 1.0\"\n}\nrdmaform {\n  required_version = \">= 9.0\"\n}\n",
	})
	var got []string
	for _, d := range diags {
		got = append(got, fmt.Sprintf("%s: %s at %s", d.Summary, d.Detail, d.Subject))
	}
	want := []string{
		"Unsupported rdmaform version: This configuration requires rdmaform < 1.0, but this is rdmaform 1.5.0. at main.rdma.hcl:2,22-29",
		"Unsupported rdmaform version: This configuration requires rdmaform >= 9.0, but this is rdmaform 1.5.0. at main.rdma.hcl:5,22-30",
	}
	for i := range got {
		got[i] = strings.Replace(got[i], filepath.Dir(diags[i].Subject.Filename)+string(filepath.Separator), "", 1)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, tc := range []struct{ name, src, want string }{
		{"twice in one block", "rdmaform {\n  required_version = \">= 0.1\"\n  required_version = \"< 2.0\"\n}\n", "Attribute redefined"},
		{"two agent blocks", "rdmaform {\n  agent {}\n}\nrdmaform {\n  agent {}\n}\n", "Duplicate agent block"},
		{"two backend blocks", "rdmaform {\n  required_version = \">= 0.1\"\n  backend \"local\" {}\n}\nrdmaform {\n  required_version = \"< 2.0\"\n  backend \"local\" {}\n}\n", "Duplicate backend block"},
	} {
		if diags := load(map[string]string{"main.rdma.hcl": tc.src}); len(diags) != 1 || diags[0].Summary != tc.want {
			t.Errorf("%s: %v, want only %q", tc.name, diags, tc.want)
		}
	}
	// An override file's constraints replace the others, as Terraform's.
	if diags := load(map[string]string{
		"main.rdma.hcl":     "rdmaform {\n  required_version = \">= 9.0\"\n}\nrdmaform {\n  required_version = \"< 1.0\"\n}\n",
		"override.rdma.hcl": "rdmaform {\n  required_version = \">= 1.0\"\n}\n",
	}); len(diags) != 0 {
		t.Errorf("override: %v", diags)
	}
}

// A duration that time.ParseDuration rejects says why: too large (not
// "not a duration"), a day unit Go does not have (with the hours to
// write), another unknown unit, or no duration at all.
func TestDurationErrors(t *testing.T) {
	for s, want := range map[string]string{
		"99999999999h": `"99999999999h" is too large: a duration can be at most 2562047h47m16.854775807s (about 292 years).`,
		"1d":           `"1d" is not a duration: durations have no "d" (day) unit; write a day as "24h".`,
		"7d":           `"7d" is not a duration: durations have no "d" (day) unit; write a day as "24h" ("7d" is "168h").`,
		"1d12h":        `"1d12h" is not a duration: durations have no "d" (day) unit; write a day as "24h".`,
		"5sec":         `"5sec" is not a duration: "sec" is not a unit; the units are "ns", "us", "ms", "s", "m" and "h".`,
		"2 seconds":    `"2 seconds" is not a duration; write a number with a unit, such as "100ms", "2s" or "1m30s".`,
		"5":            `"5" is not a duration; write a number with a unit, such as "100ms", "2s" or "1m30s".`,
	} {
		_, diags := parseDuration(s, hcl.Range{}, false)
		if len(diags) != 1 || diags[0].Detail != want {
			t.Errorf("%q: %v\nwant %s", s, diags, want)
		}
	}
	if d, diags := parseDuration("2562047h", hcl.Range{}, false); diags.HasErrors() || d.Hours() != 2562047 {
		t.Errorf("2562047h: %v %v", d, diags)
	}
}

func TestAgentNamespace(t *testing.T) {
	dir := writeDir(t, map[string]string{"main.rdma.hcl": "rdmaform {\n  agent {\n    namespace = \"storage-a.1\"\n  }\n}\n"})
	s, diags := LoadBackend(dir)
	if diags.HasErrors() || s.Agent == nil || s.Agent.Namespace != "storage-a.1" || s.Agent.Socket != "" {
		t.Fatalf("settings %+v: %v", s.Agent, diags)
	}
	for _, bad := range []string{"", "a@b", "a/b", "a#b", "with space", strings.Repeat("x", 65)} {
		dir := writeDir(t, map[string]string{"main.rdma.hcl": "rdmaform {\n  agent {\n    namespace = \"" + bad + "\"\n  }\n}\n"})
		_, diags := LoadBackend(dir)
		if !diags.HasErrors() || diags[0].Summary != "Invalid agent namespace" || diags[0].Subject == nil || diags[0].Subject.Start.Line != 3 {
			t.Errorf("namespace %q: %v", bad, diags)
		}
	}
}
