package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConsole(t *testing.T) {
	dir := t.TempDir()
	src := `variable "n" {
  type    = number
  default = 2
}
listener "l" {
  address = "10.77.0.1"
  port    = 7471 + var.n
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.rdma.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	var out, errb bytes.Buffer
	in := strings.NewReader("listener.l.port\nlistener.l.id\ncidrhost(\"10.77.0.0/24\", var.n)\nlistener.nope.port\nexit\nvar.n\n")
	code := run([]string{"console", "-no-color", "-var", "n=3"}, streams{In: in, Out: &out, Err: &errb})
	if code != 1 {
		t.Errorf("code %d, want 1 (one expression failed)", code)
	}
	if want := "7474\n(known after apply)\n\"10.77.0.3\"\n"; out.String() != want {
		t.Errorf("out = %q, want %q", out.String(), want)
	}
	if !strings.Contains(errb.String(), "Error: Unsupported attribute") || !strings.Contains(errb.String(), "listener.nope.port") {
		t.Errorf("stderr = %q", errb.String())
	}
}
