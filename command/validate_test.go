package command

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/config"
	"github.com/rdmaform/rdmaform/rdmacm"
)

func validateIn(t *testing.T, files map[string]string, args ...string) (int, string, string) {
	t.Helper()
	return Meta{}.validateIn(t, files, args...)
}

// validateIn is validateIn with m's seams (its streams are the test's).
func (m Meta) validateIn(t *testing.T, files map[string]string, args ...string) (int, string, string) {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	var out, errb bytes.Buffer
	code := run(append([]string{"validate"}, args...), m.streams(strings.NewReader(""), &out, &errb))
	return code, out.String(), errb.String()
}

func TestValidateSuccess(t *testing.T) {
	code, out, errs := validateIn(t, map[string]string{"main.rdma.hcl": `listener "a" {
  address = "10.77.0.1"
  port    = 7471
}`})
	if code != 0 || out != "Success! The configuration is valid.\n" || errs != "" {
		t.Fatalf("code %d, out %q, err %q", code, out, errs)
	}
}

func TestValidateReportsEveryErrorWithSource(t *testing.T) {
	code, out, errs := validateIn(t, map[string]string{"main.rdma.hcl": `listener "a" {
  address = "10.77.0.1"
  port    = 70000
}

endpoint "b" {
  address = listener.a.address
  port    = 7471
  connect {
    retry_count = 9
  }
}
`}, "-no-color")
	if code != 1 || out != "" {
		t.Fatalf("code %d, out %q", code, out)
	}
	want := `Error: Invalid port

  on main.rdma.hcl:3:13, in listener "a":
   3:   port    = 70000

port must be from 1 to 65535; got 70000.

Error: Invalid retry count

  on main.rdma.hcl:10:19, in endpoint "b":
  10:     retry_count = 9

retry_count must be from 0 to 7 (a 3-bit field of the connection request); got 9.

`
	if errs != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", errs, want)
	}
}

func TestValidateJSON(t *testing.T) {
	code, out, _ := validateIn(t, map[string]string{"main.rdma.hcl": `listener "a" {
  address = "10.77.0.1"
  port    = 0
}`}, "-json")
	if code != 1 {
		t.Fatalf("code %d", code)
	}
	var res config.JSONDiagnostics
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	if res.Valid || res.ErrorCount != 1 || len(res.Diagnostics) != 1 {
		t.Fatalf("result = %+v", res)
	}
	d := res.Diagnostics[0]
	if d.Severity != "error" || d.Summary != "Invalid port" || d.Range == nil || d.Range.Filename != "main.rdma.hcl" ||
		d.Range.Start.Line != 3 || d.Range.Start.Column != 13 || d.Snippet == nil || d.Snippet.Code != "  port    = 0" {
		t.Errorf("diagnostic = %+v range %+v snippet %+v", d, d.Range, d.Snippet)
	}
	if d.Snippet != nil && (d.Snippet.Context == nil || *d.Snippet.Context != `listener "a"`) {
		t.Errorf("snippet context %v, want listener \"a\"", d.Snippet.Context)
	}
	if !strings.Contains(out, `"values": []`) {
		t.Errorf("snippet values: want an empty list as Terraform's\n%s", out)
	}
}

// validate -json gives, as Terraform's, the values of the expression's
// references that the text form shows after "with": the traversal and a
// statement about its value, each reference once, sorted.
func TestValidateJSONSnippetValues(t *testing.T) {
	files := map[string]string{"main.rdma.hcl": `variable "objs" {
  type    = set(object({ n = string }))
  default = [{ n = "x" }]
}
variable "base" {
  default = 70000
}
endpoint "e" {
  for_each = var.objs
  address  = "10.77.0.1"
  port     = 1
}
listener "l" {
  count   = 1
  address = "10.77.0.1"
  port    = var.base + count.index + var.base
}
`}
	_, _, errs := validateIn(t, files, "-no-color")
	for _, want := range []string{"with var.objs as set of object with 1 element.", "with count.index as 0,\n     var.base as 70000."} {
		if !strings.Contains(errs, want) {
			t.Fatalf("the text form lacks %q:\n%s", want, errs)
		}
	}
	code, out, _ := validateIn(t, files, "-json")
	if code != 1 {
		t.Fatalf("code %d", code)
	}
	var res config.JSONDiagnostics
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	got := map[string][]config.JSONExpressionValue{}
	for _, d := range res.Diagnostics {
		if d.Snippet != nil {
			got[d.Summary] = d.Snippet.Values
		}
	}
	want := map[string][]config.JSONExpressionValue{
		"Invalid for_each argument": {{Traversal: "var.objs", Statement: "is set of object with 1 element"}},
		"Invalid port":              {{Traversal: "count.index", Statement: "is 0"}, {Traversal: "var.base", Statement: "is 70000"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("snippet values = %+v, want %+v\n%s", got, want, out)
	}
}

func TestValidateDeviceCheckWithoutBinding(t *testing.T) {
	m := Meta{Devices: func() (config.DeviceLimits, error) { return nil, rdmacm.ErrNotBuilt }}
	code, out, errs := m.validateIn(t, map[string]string{"main.rdma.hcl": `protection_domain "p" { device = "rxe0" }`}, "-device-check")
	if code != 1 || out != "" || !strings.Contains(errs, "-device-check needs the rdmacm binding") {
		t.Fatalf("code %d, out %q, err %q", code, out, errs)
	}
}

// A failed device query is an error of the validation: -json says the
// configuration is not valid, with the reason among its diagnostics.
func TestValidateDeviceCheckFailureInJSON(t *testing.T) {
	m := Meta{Devices: func() (config.DeviceLimits, error) {
		return nil, errors.New("rdma_get_devices: no such device (ENODEV)")
	}}
	code, out, errs := m.validateIn(t, map[string]string{"main.rdma.hcl": `protection_domain "p" { device = "rxe0" }`}, "-device-check", "-json")
	if code != 1 || !strings.Contains(out, `"valid": false`) || !strings.Contains(out, `"error_count": 1`) ||
		!strings.Contains(out, "could not query the RDMA devices: rdma_get_devices: no such device (ENODEV)") || errs != "" {
		t.Fatalf("code %d, out %q, err %q", code, out, errs)
	}
}

type stubDevices struct{}

func (stubDevices) Device(name string) (config.DeviceAttr, error) {
	if name == "rxe0" {
		return config.DeviceAttr{Name: "rxe0", MaxQPWR: 16384, MaxSGE: 32}, nil
	}
	return config.DeviceAttr{}, errors.New("no such device")
}

func (stubDevices) DeviceFor(string) (config.DeviceAttr, error) {
	return config.DeviceAttr{Name: "rxe0", MaxQPWR: 16384, MaxSGE: 32}, nil
}

func TestValidateDeviceCheckWithDevices(t *testing.T) {
	m := Meta{Devices: func() (config.DeviceLimits, error) { return stubDevices{}, nil }}
	code, _, errs := m.validateIn(t, map[string]string{"main.rdma.hcl": `protection_domain "p" {
  device = "mlx5_9"
}`}, "-device-check", "-no-color")
	if code != 1 || !strings.Contains(errs, `Error: No such RDMA device`) || !strings.Contains(errs, `protection_domain.p: device "mlx5_9": no such device.`) {
		t.Fatalf("code %d, err %q", code, errs)
	}
}

// twoDevices has rxe0, serving every address, and rxe1.
type twoDevices struct{}

func (twoDevices) Device(name string) (config.DeviceAttr, error) {
	if name == "rxe0" || name == "rxe1" {
		return config.DeviceAttr{Name: name, MaxQPWR: 16384, MaxSGE: 32}, nil
	}
	return config.DeviceAttr{}, errors.New("no such device")
}

func (twoDevices) DeviceFor(string) (config.DeviceAttr, error) {
	return config.DeviceAttr{Name: "rxe0", MaxQPWR: 16384, MaxSGE: 32}, nil
}

// validate -device-check refuses a protection domain on another device
// than the one serving the address of what uses it, as plan does.
func TestValidateDeviceCheckRefusesAProtectionDomainOnAnotherDevice(t *testing.T) {
	m := Meta{Devices: func() (config.DeviceLimits, error) { return twoDevices{}, nil }}
	code, _, errs := m.validateIn(t, map[string]string{"main.rdma.hcl": `protection_domain "p1" {
  device = "rxe1"
}

listener "crossl" {
  address = "10.77.0.1"
  port    = 7471
  pd      = protection_domain.p1.id
}
`}, "-device-check", "-no-color")
	if code != 1 || !strings.Contains(errs, "Protection domain on another device") ||
		!strings.Contains(errs, "listener.crossl uses protection_domain.p1, which is on device rxe1, but its address 10.77.0.1 is served by device rxe0") {
		t.Fatalf("code %d, err %q", code, errs)
	}
}

func TestValidateExamples(t *testing.T) {
	t.Chdir(".") // run changes the directory; restore it afterwards
	dirs, _ := filepath.Glob("../examples/*/main.rdma.hcl")
	if len(dirs) < 4 {
		t.Fatalf("found %d examples", len(dirs))
	}
	var abs []string
	for _, f := range dirs {
		a, _ := filepath.Abs(filepath.Dir(f))
		abs = append(abs, a)
	}
	for i, f := range dirs {
		abs := abs[i]
		var out, errb bytes.Buffer
		code := run([]string{"-chdir=" + abs, "validate"}, Meta{Out: &out, Err: &errb})
		if code != 0 {
			t.Errorf("%s: code %d: %s", f, code, errb.String())
		}
	}
}

// -help is a request, not a usage error: validate prints its help and exits
// 0, as plan, apply and Terraform's commands do.
func TestValidateHelpExitsZero(t *testing.T) {
	code, out, errs := validateIn(t, map[string]string{}, "-help")
	if code != 0 || out != "" || !strings.Contains(errs, "Usage: rdmaform [global options] validate") {
		t.Fatalf("code %d, out %q, err %q", code, out, errs)
	}
}

// -chdir takes its directory after an equals sign, as Terraform's does;
// "-chdir DIR" says so instead of calling -chdir an unknown option.
func TestChdirWithoutEquals(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"-chdir", "../examples/loopback", "validate"}, Meta{In: strings.NewReader(""), Out: &out, Err: &errb})
	if code != 1 || out.Len() != 0 || !strings.Contains(errb.String(), "Invalid -chdir option") || strings.Contains(errb.String(), "unknown global option") {
		t.Fatalf("code %d, out %q, err %q", code, out.String(), errb.String())
	}
}

// What validate's help says about variables: values in rdmaform.rdmavars
// are used and checked, RDMAFORM_VAR_* is not read.
func TestValidateVariableSources(t *testing.T) {
	cfg := `variable "port" {
  type = number
}

listener "a" {
  address = "10.77.0.1"
  port    = var.port
}
`
	t.Setenv("RDMAFORM_VAR_port", "70001")
	if code, _, errs := validateIn(t, map[string]string{"main.rdma.hcl": cfg}); code != 0 {
		t.Errorf("with RDMAFORM_VAR_port=70001 only: code %d, err %q; want it ignored", code, errs)
	}
	code, _, errs := validateIn(t, map[string]string{"main.rdma.hcl": cfg, "rdmaform.rdmavars": "port = 70002\n"}, "-no-color")
	if code != 1 || !strings.Contains(errs, "got 70002") {
		t.Errorf("with port = 70002 in rdmaform.rdmavars: code %d, err %q; want it checked", code, errs)
	}
	_, _, help := validateIn(t, map[string]string{}, "-help")
	if !strings.Contains(help, "rdmaform.rdmavars") || !strings.Contains(help, "ignores RDMAFORM_VAR_*") {
		t.Errorf("the help does not say which variable values validate uses:\n%s", help)
	}
}

// A timeouts.create under 100ms is valid, but validate warns at its value
// (a create bounded so tightly fails although the peer answers).
func TestValidateWarnsOfAShortCreateTimeout(t *testing.T) {
	code, out, errs := validateIn(t, map[string]string{"main.rdma.hcl": `endpoint "e" {
  address = "10.77.0.1"
  port    = 7471
  timeouts {
    create = "1ms"
  }
}
`}, "-no-color")
	if code != 0 || out != "Success! The configuration is valid, but there were some validation warnings as shown above.\n" {
		t.Fatalf("code %d, out %q, err %q", code, out, errs)
	}
	for _, want := range []string{
		"Warning: Create timeout shorter than a connect\n",
		"  on main.rdma.hcl:5:14, in endpoint \"e\":\n",
		`timeouts.create = "1ms" is under 100ms: it bounds the wait for ESTABLISHED after rdma_connect`,
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
}
