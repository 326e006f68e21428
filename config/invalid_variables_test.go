package config

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// A variable that fails its validation is reported once, with the value
// that failed (var.self is "node9", as Terraform 1.11 shows it under the
// snippet), and nothing that depends on it is reported: Terraform skips
// whatever depends on a failed variable. Errors that do not come from the
// variable stay.
func TestFailedValidationHidesItsConsequences(t *testing.T) {
	const variables = `variable "self" {
  type    = string
  default = "node9"
  validation {
    condition     = contains(keys(local.hosts), var.self)
    error_message = "self must name one of the hosts."
  }
}
variable "n" {
  type    = number
  default = -1
  validation {
    condition     = var.n >= 0
    error_message = "n must not be negative."
  }
}
`
	for _, c := range []struct {
		name, main string
		vars       VarInputs
		want       []string // summaries, in order
		shows      string   // in the rendered diagnostics
	}{
		{name: "index by the variable, thrice", main: `
locals {
  hosts = { node1 = "10.77.0.1", node2 = "10.77.0.2" }
}
listener "l" {
  address = local.hosts[var.self]
  port    = 7471
}
endpoint "e" {
  address = local.hosts[var.self]
  port    = 7471
}
output "o" {
  value = local.hosts[var.self]
}
`, want: []string{"Invalid value for variable", "Invalid value for variable"}, shows: `var.self is "node9"`},
		{name: "through local values", main: `
locals {
  hosts = { node1 = "10.77.0.1", node2 = "10.77.0.2" }
  me    = local.hosts[var.self]
  addr  = "${local.me}"
  count = local.n2 + 1
  n2    = var.n * 2
}
listener "l" {
  address = local.addr
  port    = 7471
}
endpoint "e" {
  count   = local.count
  address = local.addr
  port    = 7471
}
`, want: []string{"Invalid value for variable", "Invalid value for variable"}, shows: `var.n is -1`},
		{name: "an unrelated error stays", main: `
locals {
  hosts = { node1 = "10.77.0.1", node2 = "10.77.0.2" }
}
listener "l" {
  address = local.hosts[var.self]
  port    = 70000
}
`, want: []string{"Invalid port", "Invalid value for variable", "Invalid value for variable"}},
		{name: "a -var value", main: `
locals {
  hosts = { node1 = "10.77.0.1", node2 = "10.77.0.2" }
}
listener "l" {
  count   = var.n
  address = local.hosts[var.self]
  port    = 7471
}
`, vars: VarInputs{Args: VarArgs{{Value: "self=node7"}}},
			want: []string{"Invalid value for variable", "Invalid value for variable"}, shows: `var.self is "node7"`},
	} {
		l := NewLoader()
		_, diags := l.LoadSources(map[string][]byte{"main.rdma.hcl": []byte(c.main), "variables.rdma.hcl": []byte(variables)}, c.vars)
		var got []string
		for _, d := range diags {
			got = append(got, d.Summary)
		}
		var b strings.Builder
		_ = l.WriteDiagnostics(&b, diags, false, 0)
		if strings.Join(got, "; ") != strings.Join(c.want, "; ") {
			t.Errorf("%s: got %q, want %q:\n%s", c.name, got, c.want, b.String())
			continue
		}
		// HCL's text writer says "var.self as "node9"", the JSON form
		// "var.self" "is "node9"", as Terraform's.
		if as := strings.Replace(c.shows, " is ", " as ", 1); !strings.Contains(b.String(), as) {
			t.Errorf("%s: the diagnostics do not show %q:\n%s", c.name, as, b.String())
		}
		if c.shows != "" && !jsonShows(l, diags, c.shows) {
			t.Errorf("%s: the JSON diagnostics do not show %q", c.name, c.shows)
		}
	}
}

// jsonShows reports whether a diagnostic's JSON values say what the text
// writer does ("var.self" "is \"node9\"").
func jsonShows(l *Loader, diags hcl.Diagnostics, shows string) bool {
	for _, d := range l.JSON(diags).Diagnostics {
		if d.Snippet == nil {
			continue
		}
		for _, v := range d.Snippet.Values {
			if v.Traversal+" "+v.Statement == shows {
				return true
			}
		}
	}
	return false
}

// A sensitive variable's failed validation does not show its value.
func TestFailedValidationOfASensitiveVariable(t *testing.T) {
	l := NewLoader()
	_, diags := l.LoadSources(map[string][]byte{"main.rdma.hcl": []byte(`
variable "token" {
  type      = string
  default   = "hunter2"
  sensitive = true
  validation {
    condition     = length(var.token) > 10
    error_message = "The token is too short."
  }
}
locals {
  parts = { x = 1 }
}
output "o" {
  value     = local.parts[var.token]
  sensitive = true
}
`)}, VarInputs{})
	var b strings.Builder
	_ = l.WriteDiagnostics(&b, diags, false, 0)
	if len(diags) != 1 || diags[0].Summary != "Invalid value for variable" || strings.Contains(b.String(), "hunter2") {
		t.Errorf("diags:\n%s", b.String())
	}
}

// A validation may read a local value that reads its own variable: that
// local is evaluated before the validation (no cycle), and its errors
// from the variable are dropped too.
func TestFailedValidationThroughItsOwnLocal(t *testing.T) {
	l := NewLoader()
	_, diags := l.LoadSources(map[string][]byte{"main.rdma.hcl": []byte(`
variable "self" {
  type    = string
  default = "node9"
  validation {
    condition     = local.known
    error_message = "self must name one of the hosts."
  }
}
locals {
  hosts = { node1 = "10.77.0.1" }
  known = contains(keys(local.hosts), var.self)
  addr  = local.hosts[var.self]
}
listener "l" {
  address = local.addr
  port    = 7471
}
`)}, VarInputs{})
	if len(diags) != 1 || diags[0].Summary != "Invalid value for variable" {
		t.Errorf("diags = %v", diags)
	}
}
