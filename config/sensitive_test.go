package config

import (
	"strings"
	"testing"
)

// A sensitive variable's value is never printed by a diagnostic: neither
// in the "with var.x as ..." line, directly or through a local or a block
// that uses it, nor through a validation's error_message.
func TestDiagnosticsHideSensitiveValues(t *testing.T) {
	l := NewLoader()
	l.Validate = true
	_, diags := l.LoadSources(map[string][]byte{"main.rdma.hcl": []byte(`
variable "token" {
  type      = string
  default   = "hunter2-hunter2-hunter2-hunter2-hunter2-hunter2-hunter2-hunter2"
  sensitive = true
  validation {
    condition     = substr(var.token, 0, 1) == "x"
    error_message = "bad token ${var.token}"
  }
}
variable "secret_port" {
  type      = number
  default   = 99991
  sensitive = true
}
variable "plain_port" {
  type    = number
  default = 99992
}
locals {
  pd = var.token
}
listener "l" {
  address = "10.77.0.1"
  port    = var.secret_port
}
endpoint "e" {
  address = "10.77.0.1"
  port    = listener.l.port
  connect {
    private_data = local.pd
  }
}
endpoint "f" {
  address = "10.77.0.1"
  port    = var.plain_port
}
`)}, VarInputs{})
	var b strings.Builder
	if err := l.WriteDiagnostics(&b, diags, false, 0); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, secret := range []string{"hunter2", "as 99991"} {
		if strings.Contains(out, secret) {
			t.Errorf("the diagnostics show %q:\n%s", secret, out)
		}
	}
	for _, want := range []string{
		"The error message included a sensitive value, so it will not be displayed.",
		"Private data too long",
		"with var.plain_port as 99992.", // values not derived from a sensitive one still show
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the diagnostics lack %q:\n%s", want, out)
		}
	}
}
