package config

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
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
variable "long_secret" {
  type      = string
  default   = "hunter2-hunter2-hunter2-hunter2-hunter2-hunter2-hunter2-hunter2"
  sensitive = true
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
  # Not var.token: its validation fails, so nothing using it is reported.
  pd = var.long_secret
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
	lines := sensitiveOutputErrorLines(t, diags)
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
	lines := sensitiveOutputErrorLines(t, diags)
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
  # A map whose values are sensitive, not the map: each.value is.
  for_each = { a = var.ports["a"] }
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
	if !cfg.Instances[m].IsSensitive(cty.GetAttrPath("port")) {
		t.Errorf("%s: port from a sensitive each.value is not sensitive (%v)", m, cfg.Instances[m].Sensitive)
	}
	if out := cfg.OutputsWith(func(addrs.Instance) (cty.Value, bool) { return cty.NilVal, false }); out["n"].ContainsMarked() {
		t.Errorf("OutputsWith: output n is marked")
	}
}

// As in Terraform, for_each refuses a sensitive value: its keys become
// instance addresses, which are shown everywhere.
func TestForEachRefusesASensitiveValue(t *testing.T) {
	for _, expr := range []string{"var.ports", "sensitive({ a = 7471 })", "toset(sensitive([\"a\"]))"} {
		_, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(`
variable "ports" {
  type      = map(number)
  default   = { a = 7471 }
  sensitive = true
}
listener "m" {
  for_each = ` + expr + `
  address  = "10.77.0.2"
  port     = 7471
}
`)}, VarInputs{})
		if !diags.HasErrors() || diags[0].Summary != "Invalid for_each argument" || !strings.Contains(diags[0].Detail, "Sensitive values, or values derived from sensitive values, cannot be used as for_each arguments") || diags[0].Subject.Start.Line != 8 {
			t.Errorf("for_each = %s: %v", expr, diags)
		}
	}
}

// The details of range and validation errors do not print a value derived
// from a sensitive variable (directly, through a local, through a block,
// or from sensitive()), nor do -var conversion errors of a sensitive
// variable: they say "(sensitive value)" instead, as Terraform does.
// Other values still show.
func TestErrorDetailsHideSensitiveValues(t *testing.T) {
	l := NewLoader()
	_, diags := l.LoadSources(map[string][]byte{"main.rdma.hcl": []byte(`
variable "p" {
  default   = 99991
  sensitive = true
}
variable "secret_addr" {
  type      = string
  default   = "hunter2!"
  sensitive = true
}
variable "n" {
  type      = number
  default   = 0
  sensitive = true
}
variable "w" {
  type      = number
  sensitive = true
}
locals {
  a = var.secret_addr
}
listener "l" {
  address = "10.77.0.1"
  port    = var.p
}
listener "m" {
  address = local.a
  port    = 7471
}
listener "dup" {
  count   = 2
  address = "fd77::${var.n + 7}"
  port    = 7472
}
endpoint "e" {
  address = "10.77.0.1"
  port    = listener.l.port
  connect {
    timeout     = "${var.p}d"
    retry_count = sensitive(99992)
  }
  reconnect {
    min_backoff = "${var.p}s"
    max_backoff = "1s"
  }
}
endpoint "f" {
  count   = var.n - 99993
  address = "10.77.0.1"
  port    = 1
}
endpoint "g" {
  address        = "fd77::1"
  source_address = sensitive("10.99.99.94")
  port           = 1
}
endpoint "plain" {
  address = "10.77.0.1"
  port    = 99998
  connect {
    timeout = "99999d"
  }
}
`)}, VarInputs{Args: VarArgs{{Value: "w=hunter3+"}}})
	var b strings.Builder
	if err := l.WriteDiagnostics(&b, diags, false, 0); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, secret := range []string{"99991", "hunter2", "got 99992", "-99993", "source_address 10.99.99.94", "fd77::7", "hunter3"} {
		if strings.Contains(out, secret) {
			t.Errorf("the diagnostics show %q:\n%s", secret, out)
		}
	}
	for _, want := range []string{
		"port must be from 1 to 65535; got (sensitive value).",
		"address must be an IPv4 or IPv6 address or a host name; got (sensitive value).",
		"retry_count must be from 0 to 7 (a 3-bit field of the connection request); got (sensitive value).",
		"count must be a whole number from 0 to 100000; got (sensitive value).",
		"timeout is not a positive duration with a unit",
		"max_backoff must not be shorter than min_backoff. (Their values are sensitive",
		"source_address and address are not of the same family (IPv4 and IPv6); rdma_resolve_addr would fail with EINVAL. (Their values are sensitive",
		"both listen on the same address, port and port space (not shown: sensitive)",
		"The value for var.w from -var is not a number: the value (sensitive, so not shown) is not a valid expression",
		"port must be from 1 to 65535; got 99998.", // values not derived from a sensitive one still show
		`"99999d" is not a duration`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the diagnostics lack %q:\n%s", want, out)
		}
	}
}

// Instance.Sensitive lists the attributes whose value comes from a
// sensitive variable (directly or through a local) or sensitive(), and
// not through nonsensitive(); the values themselves stay unmarked. A body
// reused across instances (a constant sensitive() in a count block)
// reports its paths for every instance.
func TestInstanceSensitivePaths(t *testing.T) {
	cfg := mustLoad(t, map[string]string{"main.rdma.hcl": `
variable "secret" {
  type      = string
  default   = "tok-42"
  sensitive = true
}
variable "port" {
  type      = number
  default   = 7801
  sensitive = true
}
locals {
  pd = "peer=${var.secret}"
}
listener "l" {
  address = "10.77.0.1"
  port    = 7801
  accept {
    private_data        = local.pd
    reject_private_data = nonsensitive(var.secret)
  }
}
endpoint "e" {
  count   = 3
  address = listener.l.address
  port    = var.port
  connect {
    private_data = sensitive("x")
  }
}
endpoint "plain" {
  address = listener.l.address
  port    = listener.l.port
  connect {
    private_data = "y"
  }
}
`})
	paths := func(i *Instance) string {
		var out []string
		for _, p := range i.Sensitive {
			var s []string
			for _, st := range p {
				s = append(s, st.(cty.GetAttrStep).Name)
			}
			out = append(out, strings.Join(s, "."))
		}
		return strings.Join(out, " ")
	}
	l := instance(t, cfg, "listener.l")
	if got := paths(l); got != "accept.private_data" {
		t.Errorf("listener.l: sensitive %q, want accept.private_data", got)
	}
	if !l.IsSensitive(cty.GetAttrPath("accept").GetAttr("private_data")) || l.IsSensitive(cty.GetAttrPath("accept").GetAttr("reject_private_data")) {
		t.Errorf("listener.l: IsSensitive wrong for %v", l.Sensitive)
	}
	if v := l.Value.GetAttr("accept").GetAttr("private_data"); v.IsMarked() || v.AsString() != "peer=tok-42" || string(l.Listener.Accept.PrivateData) != "peer=tok-42" {
		t.Errorf("listener.l: value %#v, typed %q", v, l.Listener.Accept.PrivateData)
	}
	for i := 0; i < 3; i++ {
		e := instance(t, cfg, "endpoint.e["+string(rune('0'+i))+"]")
		if got := paths(e); got != "port connect.private_data" {
			t.Errorf("%s: sensitive %q, want \"port connect.private_data\"", e.Addr, got)
		}
		if e.Value.ContainsMarked() {
			t.Errorf("%s: marked value", e.Addr)
		}
	}
	if p := instance(t, cfg, "endpoint.plain"); p.Sensitive != nil {
		t.Errorf("endpoint.plain: sensitive %v", p.Sensitive)
	}

	// Evaluated again with values after apply, the paths are the same.
	again, diags := cfg.InstanceWith(l.Addr, func(addrs.Instance) (cty.Value, bool) { return cty.NilVal, false })
	if diags.HasErrors() || paths(again) != "accept.private_data" {
		t.Errorf("InstanceWith: %v %q", diags, paths(again))
	}
}

// What a block computes from another block's sensitive attribute is
// sensitive too, through count and for_each instances alike, and an output
// of it must be marked sensitive; the values themselves stay unmarked.
func TestSensitivityFollowsReferencesBetweenBlocks(t *testing.T) {
	src := `
variable "port" {
  type      = number
  default   = 7801
  sensitive = true
}
listener "l" {
  count   = 2
  address = "10.77.0.1"
  port    = var.port + count.index
  accept {
    private_data = "p"
  }
}
endpoint "e" {
  address = listener.l[1].address
  port    = listener.l[1].port
  connect {
    private_data = "to-${listener.l[0].port}-${listener.l[0].accept.private_data}"
  }
}
endpoint "plain" {
  address = listener.l[0].address
  port    = 7900
}
output "p" {
  value     = endpoint.e.port
  sensitive = true
}
`
	cfg := mustLoad(t, map[string]string{"main.rdma.hcl": src})
	e := instance(t, cfg, "endpoint.e")
	for _, p := range []cty.Path{cty.GetAttrPath("port"), cty.GetAttrPath("connect").GetAttr("private_data")} {
		if !e.IsSensitive(p) {
			t.Errorf("endpoint.e: %v is not sensitive (sensitive: %v)", p, e.Sensitive)
		}
	}
	if e.IsSensitive(cty.GetAttrPath("address")) || e.Value.ContainsMarked() || e.Endpoint.Port != 7802 {
		t.Errorf("endpoint.e: address sensitive %v, marked value %v, port %d", e.IsSensitive(cty.GetAttrPath("address")), e.Value.ContainsMarked(), e.Endpoint.Port)
	}
	if p := instance(t, cfg, "endpoint.plain"); p.Sensitive != nil {
		t.Errorf("endpoint.plain: sensitive %v", p.Sensitive)
	}
	_, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(strings.Replace(src, "value     = endpoint.e.port\n  sensitive = true", "value     = endpoint.e.port", 1))}, VarInputs{})
	if lines := sensitiveOutputErrorLines(t, diags); len(lines) != 1 {
		t.Errorf("an output of another block's sensitive attribute without sensitive = true: errors on lines %v, want one", lines)
	}
}

// sensitiveOutputErrorLines is the lines of the "Output refers to
// sensitive values" errors in diags, which must hold no other.
func sensitiveOutputErrorLines(t *testing.T, diags hcl.Diagnostics) []int {
	t.Helper()
	var lines []int
	for _, d := range diags {
		if d.Summary != "Output refers to sensitive values" || d.Subject == nil {
			t.Errorf("unexpected diagnostic: %s: %s", d.Summary, d.Detail)
			continue
		}
		lines = append(lines, d.Subject.Start.Line)
	}
	return lines
}

// Messages that hcl and the functions write themselves quote the values
// they could not use: a sensitive one is replaced, when loading and in
// the console's evaluations.
func TestFunctionErrorsDoNotQuoteSensitiveValues(t *testing.T) {
	src := `
variable "s" {
  type      = string
  sensitive = true
  default   = "topsecret-host!"
}
locals {
  upper = upper(var.s)
}
endpoint "e" {
  address = "10.0.0.1"
  port    = tonumber(var.s)
}
endpoint "f" {
  address = "10.0.0.1"
  port    = tonumber(local.upper)
}
`
	cfg, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(src)}, VarInputs{})
	if len(diags) != 2 {
		t.Fatalf("want two errors, got %v", diags)
	}
	for _, d := range diags {
		if strings.Contains(strings.ToLower(d.Detail+d.Summary), "topsecret") || !strings.Contains(d.Detail, "cannot convert (sensitive value) to number") {
			t.Errorf("the error shows the sensitive value, or lacks its place: %s: %s", d.Summary, d.Detail)
		}
	}
	for _, x := range []string{`cidrhost(var.s, 1)`, `{for x in [var.s, var.s] : x => 1}`, `parseint(local.upper, 10)`} {
		e, _ := hclsyntax.ParseExpression([]byte(x), "console", hcl.InitialPos)
		_, diags := cfg.Eval(e)
		if !diags.HasErrors() || strings.Contains(strings.ToLower(diags.Error()), "topsecret") {
			t.Errorf("%s: %v", x, diags)
		}
	}
}

// A sensitive value that is also a word leaves the other messages whole:
// only quoted texts are replaced.
func TestScrubLeavesWordsAlone(t *testing.T) {
	src := "variable \"psk\" {\n  type = string\n  sensitive = true\n  default = \"port\"\n}\nlistener \"l\" {\n  address = \"10.77.0.1\"\n  port = 7471\n}\n"
	cfg, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(src)}, VarInputs{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	e, _ := hclsyntax.ParseExpression([]byte("listener.l.prot"), "console", hcl.InitialPos)
	if _, diags := cfg.Eval(e); !diags.HasErrors() || !strings.Contains(diags[0].Summary, "Unsupported attribute") {
		t.Errorf("%v", diags)
	}
}
