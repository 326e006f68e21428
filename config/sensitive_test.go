package config

import (
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
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

// sensitive() marks a value as a sensitive variable's is, so that an
// output of it must be sensitive; nonsensitive() lifts the mark (from a
// sensitive variable too) and returns a plain value as it is, as Terraform
// does since v1.6. Values derived from sensitive ones work everywhere
// (count, for_each, validation, attributes) and leave the package
// unmarked.
func TestSensitiveAndNonsensitiveFunctions(t *testing.T) {
	l := NewLoader()
	_, diags := l.LoadSources(map[string][]byte{"main.rdma.hcl": []byte(`
variable "token" {
  type      = string
  default   = "s3cret"
  sensitive = true
}
locals {
  hidden = sensitive("plain")
}
output "hidden" {
  value = local.hidden
}
output "hidden_list" {
  value = [sensitive(1)]
}
output "lifted" {
  value = nonsensitive(length(var.token))
}
output "lifted_local" {
  value = nonsensitive(local.hidden)
}
output "plain" {
  value = nonsensitive("plain")
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
	if len(lines) != 2 || lines[0] != 11 || lines[1] != 14 {
		t.Errorf("errors on lines %v, want [11 14] (outputs hidden and hidden_list)", lines)
	}

	cfg := mustLoad(t, map[string]string{"main.rdma.hcl": `
variable "n" {
  type      = number
  default   = 2
  sensitive = true
  validation {
    condition     = var.n < 10
    error_message = "too many"
  }
}
variable "ports" {
  type      = map(number)
  default   = { a = 7471 }
  sensitive = true
}
listener "l" {
  count   = var.n
  address = "10.77.0.1"
  port    = sensitive(7000 + count.index)
}
listener "m" {
  for_each = var.ports
  address  = "10.77.0.2"
  port     = each.value
}
output "n" {
  value     = var.n
  sensitive = true
}
output "lifted" {
  value = nonsensitive(var.n) + 1
}
`})
	if len(cfg.Instances) != 3 {
		t.Fatalf("%d instances, want 3", len(cfg.Instances))
	}
	for addr, inst := range cfg.Instances {
		if inst.Value.ContainsMarked() {
			t.Errorf("%s: value is marked: %#v", addr, inst.Value)
		}
	}
	if p := cfg.Instances[addrs.Resource{Kind: addrs.Listener, Name: "l"}.Instance(addrs.IntKey(1))].Listener.Port; p != 7001 {
		t.Errorf("listener.l[1].port = %d, want 7001", p)
	}
	for name, want := range map[string]cty.Value{"n": cty.NumberIntVal(2), "lifted": cty.NumberIntVal(3)} {
		if got := cfg.Outputs[name].Value; !got.RawEquals(want) {
			t.Errorf("output %s = %#v, want %#v (unmarked)", name, got, want)
		}
	}
	m := addrs.Resource{Kind: addrs.Listener, Name: "m"}.Instance(addrs.StringKey("a"))
	inst, d := cfg.InstanceWith(m, func(addrs.Instance) (cty.Value, bool) { return cty.NilVal, false })
	if d.HasErrors() || inst.Listener.Port != 7471 {
		t.Errorf("InstanceWith(%s): %v, port %d", m, d, inst.Listener.Port)
	}
	if out := cfg.OutputsWith(func(addrs.Instance) (cty.Value, bool) { return cty.NilVal, false }); out["n"].ContainsMarked() {
		t.Errorf("OutputsWith: output n is marked")
	}
}
