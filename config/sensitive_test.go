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

// An output whose value comes from a sensitive variable, directly or
// through locals, must be marked sensitive itself, as in Terraform; one
// that is marked, or that uses only other values, is fine.
func TestOutputOfSensitiveValueMustBeSensitive(t *testing.T) {
	l := NewLoader()
	l.Validate = true
	_, diags := l.LoadSources(map[string][]byte{"main.rdma.hcl": []byte(`
variable "token" {
  type      = string
  default   = "s3cret"
  sensitive = true
}
variable "name" {
  type    = string
  default = "n"
}
locals {
  wrapped = "t=${var.token}"
}
output "direct" {
  value = var.token
}
output "through_local" {
  value = upper(local.wrapped)
}
output "marked" {
  value     = local.wrapped
  sensitive = true
}
output "plain" {
  value = var.name
}
`)}, VarInputs{})
	var lines []int
	for _, d := range diags {
		if d.Summary != "Output refers to sensitive values" || d.Subject == nil {
			t.Errorf("unexpected diagnostic: %s: %s", d.Summary, d.Detail)
			continue
		}
		lines = append(lines, d.Subject.Start.Line)
	}
	if len(lines) != 2 || lines[0] != 15 || lines[1] != 18 {
		t.Errorf("errors on lines %v, want [15 18] (outputs direct and through_local)", lines)
	}
}
