package command

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	fmtUgly = "listener \"a\" {\naddress=\"10.77.0.1\"\n  port    =   7471\n}\n"
	fmtNice = "listener \"a\" {\n  address = \"10.77.0.1\"\n  port    = 7471\n}\n"
)

func fmtIn(t *testing.T, files map[string]string, args ...string) (string, int, string, string) {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	var out, errb bytes.Buffer
	code := run(append([]string{"fmt"}, args...), Meta{In: strings.NewReader(fmtUgly), Out: &out, Err: &errb})
	return dir, code, out.String(), errb.String()
}

func fmtReadFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestFmtRewritesAndLists(t *testing.T) {
	dir, code, out, errs := fmtIn(t, map[string]string{"a.rdma.hcl": fmtUgly, "b.rdma.hcl": fmtNice, "x.auto.rdmavars": "port=1\n"})
	if code != 0 || errs != "" {
		t.Fatalf("code %d, err %q", code, errs)
	}
	if out != "a.rdma.hcl\nx.auto.rdmavars\n" {
		t.Errorf("listed %q", out)
	}
	if got := fmtReadFile(t, filepath.Join(dir, "a.rdma.hcl")); got != fmtNice {
		t.Errorf("a.rdma.hcl = %q", got)
	}
	if got := fmtReadFile(t, filepath.Join(dir, "x.auto.rdmavars")); got != "port = 1\n" {
		t.Errorf("x.auto.rdmavars = %q", got)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "a.rdma.hcl")); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode = %v, want 0640 kept", fi.Mode().Perm())
	}
}

func TestFmtCheckAndDiffDoNotWrite(t *testing.T) {
	dir, code, out, _ := fmtIn(t, map[string]string{"a.rdma.hcl": fmtUgly}, "-check", "-diff")
	if code != 3 {
		t.Fatalf("code %d, want 3", code)
	}
	want := "a.rdma.hcl\n--- old/a.rdma.hcl\n+++ new/a.rdma.hcl\n@@ -1,4 +1,4 @@\n listener \"a\" {\n-address=\"10.77.0.1\"\n-  port    =   7471\n+  address = \"10.77.0.1\"\n+  port    = 7471\n }\n"
	if out != want {
		t.Errorf("out =\n%s\nwant\n%s", out, want)
	}
	if got := fmtReadFile(t, filepath.Join(dir, "a.rdma.hcl")); got != fmtUgly {
		t.Errorf("file changed by -check: %q", got)
	}
}

func TestFmtWriteFalse(t *testing.T) {
	dir, code, out, _ := fmtIn(t, map[string]string{"a.rdma.hcl": fmtUgly}, "-write=false")
	if code != 0 || out != "a.rdma.hcl\n" || fmtReadFile(t, filepath.Join(dir, "a.rdma.hcl")) != fmtUgly {
		t.Fatalf("code %d out %q", code, out)
	}
}

func TestFmtCheckClean(t *testing.T) {
	_, code, out, _ := fmtIn(t, map[string]string{"a.rdma.hcl": fmtNice}, "-check")
	if code != 0 || out != "" {
		t.Fatalf("code %d out %q", code, out)
	}
}

func TestFmtSyntaxErrorLeavesFileUntouched(t *testing.T) {
	bad := "listener \"a\" {\n  port =\n"
	dir, code, _, errs := fmtIn(t, map[string]string{"bad.rdma.hcl": bad, "a.rdma.hcl": fmtUgly}, "-no-color")
	if code != 2 {
		t.Fatalf("code %d, want 2", code)
	}
	if !strings.Contains(errs, "Error: ") || !strings.Contains(errs, "on bad.rdma.hcl:2:9,") {
		t.Errorf("stderr = %q", errs)
	}
	if got := fmtReadFile(t, filepath.Join(dir, "bad.rdma.hcl")); got != bad {
		t.Errorf("bad file changed: %q", got)
	}
	if got := fmtReadFile(t, filepath.Join(dir, "a.rdma.hcl")); got != fmtNice {
		t.Errorf("good file not formatted: %q", got)
	}
}

func TestFmtRecursive(t *testing.T) {
	files := map[string]string{"a.rdma.hcl": fmtNice, "sub/b.rdma.hcl": fmtUgly}
	dir, code, out, _ := fmtIn(t, files)
	if code != 0 || out != "" || fmtReadFile(t, filepath.Join(dir, "sub/b.rdma.hcl")) != fmtUgly {
		t.Fatalf("without -recursive: code %d out %q", code, out)
	}
	dir, code, out, _ = fmtIn(t, files, "-recursive")
	if code != 0 || out != filepath.Join("sub", "b.rdma.hcl")+"\n" || fmtReadFile(t, filepath.Join(dir, "sub/b.rdma.hcl")) != fmtNice {
		t.Fatalf("with -recursive: code %d out %q", code, out)
	}
}

func TestFmtStdin(t *testing.T) {
	_, code, out, _ := fmtIn(t, nil, "-")
	if code != 0 || out != fmtNice {
		t.Fatalf("code %d out %q", code, out)
	}
}

// -help prints fmt's help and exits 0 (not 1, a usage error), without
// touching any file.
func TestFmtHelpExitsZero(t *testing.T) {
	dir, code, out, errs := fmtIn(t, map[string]string{"a.rdma.hcl": fmtUgly}, "-help")
	if code != 0 || out != "" || !strings.Contains(errs, "Usage: rdmaform [global options] fmt") {
		t.Fatalf("code %d, out %q, err %q", code, out, errs)
	}
	if got := fmtReadFile(t, filepath.Join(dir, "a.rdma.hcl")); got != fmtUgly {
		t.Errorf("a.rdma.hcl rewritten: %q", got)
	}
}

// A configuration file that is a symbolic link (to a file shared by several
// configurations) is formatted where it points; the link stays a link.
func TestFmtFollowsSymlinks(t *testing.T) {
	dir, _, _, _ := fmtIn(t, map[string]string{"shared/common.rdma.hcl": fmtUgly})
	cfg := filepath.Join(dir, "cfg")
	if err := os.Mkdir(cfg, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(cfg, "common.rdma.hcl")
	if err := os.Symlink(filepath.Join("..", "shared", "common.rdma.hcl"), link); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"fmt", "cfg"}, Meta{In: strings.NewReader(""), Out: &out, Err: &errb}); code != 0 {
		t.Fatalf("code %d, err %q", code, errb.String())
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("cfg/common.rdma.hcl is no longer a symbolic link (%v)", err)
	}
	if got := fmtReadFile(t, filepath.Join(dir, "shared", "common.rdma.hcl")); got != fmtNice {
		t.Errorf("the link's target = %q, want it formatted", got)
	}
}

// A file reached through several arguments, such as a subdirectory and
// its parent with -recursive, is processed and listed once.
func TestFmtDeduplicatesPaths(t *testing.T) {
	files := map[string]string{"a/b/x.rdma.hcl": fmtUgly, "a/y.rdma.hcl": fmtUgly}
	dir, code, out, errs := fmtIn(t, files, "-recursive", "a/b", "a", "./a/b/x.rdma.hcl")
	want := filepath.Join("a", "b", "x.rdma.hcl") + "\n" + filepath.Join("a", "y.rdma.hcl") + "\n"
	if code != 0 || errs != "" || out != want {
		t.Fatalf("code %d, err %q, listed %q, want %q", code, errs, out, want)
	}
	if got := fmtReadFile(t, filepath.Join(dir, "a", "b", "x.rdma.hcl")); got != fmtNice {
		t.Errorf("a/b/x.rdma.hcl = %q", got)
	}
	_, code, out, _ = fmtIn(t, files, "-check", "-recursive", "a/b", "a")
	if code != 3 || out != want {
		t.Errorf("-check: code %d, listed %q, want %q", code, out, want)
	}
}

// TestFmtMissingPath: a path that does not exist is said to be missing, as
// Terraform says it, rather than with the system call's error.
func TestFmtMissingPath(t *testing.T) {
	_, code, _, errs := fmtIn(t, map[string]string{"a.rdma.hcl": fmtUgly}, "-no-color", "nonexist.rdma.hcl")
	if code != 2 || !strings.Contains(errs, "No file or directory at nonexist.rdma.hcl") || strings.Contains(errs, "stat ") {
		t.Errorf("code %d, stderr %q", code, errs)
	}
}
