//go:build integration

package command

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// validate -device-check against the testbed's real device, through the
// binding: the examples pass; a protection domain on a missing device and an
// address no RDMA device serves are errors naming them.
func TestValidateDeviceCheckOnRealDevices(t *testing.T) {
	if os.Getenv("RDMAFORM_TEST_DEVICE") == "" {
		t.Fatal("RDMAFORM_TEST_DEVICE is not set: run the integration tests in the Soft-RoCE testbed (scripts/vm-run)")
	}
	validate := func(dir string) (int, string) {
		var out, errb bytes.Buffer
		code := run([]string{"-chdir=" + dir, "validate", "-device-check", "-no-color"}, Meta{In: strings.NewReader(""), Out: &out, Err: &errb})
		// -chdir moved this process; come back for the next call.
		return code, out.String() + errb.String()
	}
	wd, _ := os.Getwd()
	t.Cleanup(func() { os.Chdir(wd) })

	for _, ex := range []string{"loopback", "fanout", "ud-pair"} {
		code, out := validate(filepath.Join(wd, "..", "examples", ex))
		os.Chdir(wd)
		if code != 0 {
			t.Errorf("examples/%s with -device-check: exit %d\n%s", ex, code, out)
		}
	}

	dir := t.TempDir()
	cfg := `protection_domain "far" {
  device = "mlx5_9"
}

endpoint "l" {
  address = "192.0.2.1"
  port    = 7471
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.rdma.hcl"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out := validate(dir)
	os.Chdir(wd)
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, out)
	}
	for _, want := range []string{"mlx5_9", "on main.rdma.hcl:2:", "192.0.2.1", "on main.rdma.hcl:6:", "ENETUNREACH"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	t.Logf("validate -device-check said:\n%s", out)
}
