package config

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
)

const agentTLS = `
  tls {
    ca_file   = "pki/ca.pem"
    cert_file = "pki/operator.pem"
    key_file  = "pki/operator-key.pem"
  }`

// agentSrc is an agent block with address and the tls block above.
func agentSrc(name, address string) string {
	return `agent "` + name + `" {
  address = "` + address + `"` + agentTLS + `
}
`
}

// TestAgentsOfTheExample loads examples/multi-host, the issue's
// configuration: each object's agent and every agent instance.
func TestAgentsOfTheExample(t *testing.T) {
	dir := "../examples/multi-host"
	cfg, diags := Load(dir, VarInputs{})
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	wantAgents := map[string]string{
		`agent.storage["s1"]`: "10.77.1.1:7470",
		`agent.storage["s2"]`: "10.77.1.2:7470",
		`agent.compute`:       "10.77.1.3:7470",
	}
	if len(cfg.Agents) != len(wantAgents) {
		t.Errorf("Agents = %v, want %v", cfg.Agents, wantAgents)
	}
	for key, address := range wantAgents {
		a := cfg.Agents[key]
		if a == nil {
			t.Errorf("no agent %s", key)
			continue
		}
		wantTLS := AgentTLS{CAFile: filepath.Join(dir, "pki/ca.pem"), CertFile: filepath.Join(dir, "pki/operator.pem"), KeyFile: filepath.Join(dir, "pki/operator-key.pem")}
		if a.Key != key || a.Address != address || a.TLS != wantTLS {
			t.Errorf("%s = %+v, want address %s, tls %+v", key, a, address, wantTLS)
		}
		if a.DeclRange.Filename != filepath.Join(dir, "main.rdma.hcl") || a.DeclRange.Start.Line == 0 {
			t.Errorf("%s DeclRange = %s", key, a.DeclRange)
		}
	}
	for addr, agent := range map[string]string{
		`listener.blocks["s1"]`: `agent.storage["s1"]`,
		`listener.blocks["s2"]`: `agent.storage["s2"]`,
		`endpoint.blocks["s1"]`: `agent.compute`,
		`endpoint.blocks["s2"]`: `agent.compute`,
	} {
		if got := instance(t, cfg, addr).Agent; got != agent {
			t.Errorf("%s.Agent = %q, want %q", addr, got, agent)
		}
	}
	if e := instance(t, cfg, `endpoint.blocks["s2"]`).Endpoint; e.Address != "10.77.1.2" || e.Port != 7471 {
		t.Errorf("endpoint.blocks[\"s2\"] = %+v", e)
	}
	// An agent is not an object: nothing depends on it.
	for _, r := range cfg.Resources {
		for _, d := range r.DependsOn {
			if d.Kind == agentKind {
				t.Errorf("%s depends on %s", r.Addr, d)
			}
		}
	}
}

func TestObjectsWithoutAgentUseTheLocalOne(t *testing.T) {
	cfg := mustLoad(t, map[string]string{"main.rdma.hcl": agentSrc("compute", "10.77.1.3:7470") + `
listener "l" {
  address = "10.77.0.1"
  port    = 7471
}
`})
	if got := instance(t, cfg, "listener.l").Agent; got != "" {
		t.Errorf("Agent = %q, want \"\" (the local agent)", got)
	}
}

func TestAgentForms(t *testing.T) {
	cfg := mustLoad(t, map[string]string{"main.rdma.hcl": `
variable "port" {
  default = 7470
}
locals {
  hosts = ["10.77.1.1", "fd77::2"]
}
agent "r" {
  count   = 2
  address = "${count.index == 0 ? local.hosts[0] : "[${local.hosts[1]}]"}:${var.port}"
  tls {
    ca_file     = "/etc/pki/ca.pem"
    cert_file   = "pki/c.pem"
    key_file    = "pki/k.pem"
    server_name = "agent-${count.index}.fabric"
  }
}
listener "l" {
  count   = 2
  agent   = agent.r[count.index]
  address = "0.0.0.0"
  port    = 7471
}
variable "which" {
  default = 1
}
listener "second" {
  agent   = agent.r[var.which]
  address = "fd77::2"
  port    = 7472
}
listener "first" {
  agent   = agent.r[0]
  address = "10.77.1.1"
  port    = 7472
}
output "where" {
  value = agent.r[1].address
}
`})
	a := cfg.Agents["agent.r[1]"]
	if a == nil || a.Address != "[fd77::2]:7470" || a.TLS.ServerName != "agent-1.fabric" || a.TLS.CAFile != "/etc/pki/ca.pem" || a.TLS.CertFile != "pki/c.pem" {
		t.Fatalf("agent.r[1] = %+v", a)
	}
	for addr, want := range map[string]string{"listener.l[0]": "agent.r[0]", "listener.l[1]": "agent.r[1]", "listener.first": "agent.r[0]", "listener.second": "agent.r[1]"} {
		if got := instance(t, cfg, addr).Agent; got != want {
			t.Errorf("%s.Agent = %q, want %q", addr, got, want)
		}
	}
	if v := cfg.Outputs["where"].Value; !v.RawEquals(cty.StringVal("[fd77::2]:7470")) {
		t.Errorf("output = %#v", v)
	}
}

func TestAgentInJSONSyntax(t *testing.T) {
	cfg := mustLoad(t, map[string]string{"main.rdma.json": `{
  "locals": {"storage": {"s1": "10.77.1.1"}},
  "agent": {
    "storage": {
      "for_each": "${local.storage}",
      "address": "${each.value}:7470",
      "tls": {"ca_file": "ca.pem", "cert_file": "c.pem", "key_file": "k.pem"}
    }
  },
  "listener": {
    "blocks": {
      "for_each": "${local.storage}",
      "agent": "agent.storage[each.key]",
      "address": "${each.value}",
      "port": 7471
    }
  }
}`})
	if got := instance(t, cfg, `listener.blocks["s1"]`).Agent; got != `agent.storage["s1"]` {
		t.Errorf("Agent = %q", got)
	}
	if a := cfg.Agents[`agent.storage["s1"]`]; a == nil || a.Address != "10.77.1.1:7470" || a.TLS.KeyFile != "k.pem" {
		t.Errorf("agent = %+v", a)
	}
}

// TestListenersOnTwoAgentsMayShareAPort: the bind rule is per agent.
func TestListenersOnTwoAgentsMayShareAPort(t *testing.T) {
	cfg := mustLoad(t, map[string]string{"main.rdma.hcl": agentSrc("a", "10.77.1.1:7470") + agentSrc("b", "10.77.1.2:7470") + `
listener "x" {
  agent   = agent.a
  address = "0.0.0.0"
  port    = 7471
}
listener "y" {
  agent   = agent.b
  address = "0.0.0.0"
  port    = 7471
}
listener "z" {
  agent   = agent.b
  address = "10.77.0.2"
  port    = 7472
}
listener "w" {
  address = "10.77.0.2"
  port    = 7472
}
listener "v" {
  agent   = agent.a
  address = "0.0.0.0"
  port    = 7473
}
listener "u" {
  agent   = agent.b
  address = "10.77.0.3"
  port    = 7473
}
`})
	if len(cfg.Instances) != 6 {
		t.Errorf("%d instances", len(cfg.Instances))
	}
}

// agentRuleCases are the agent block's and the agent argument's errors,
// each exactly one diagnostic at its position.
var agentRuleCases = []ruleCase{
	{"missing tls", `agent "c" {
  address = "10.77.1.3:7470"
}`, "Missing tls block", "only over mutual TLS (there is no plaintext mode)", 1, 1},
	{"tls without key_file", `agent "c" {
  address = "10.77.1.3:7470"
  tls {
    ca_file   = "ca.pem"
    cert_file = "c.pem"
  }
}`, "Missing required argument", `The argument "key_file" is required`, 3, 7},
	{"empty tls file", `agent "c" {
  address = "10.77.1.3:7470"
  tls {
    ca_file   = ""
    cert_file = "c.pem"
    key_file  = "k.pem"
  }
}`, "Invalid file name", "ca_file must name a file", 4, 17},
	{"missing address", `agent "c" {` + agentTLS + `
}`, "Missing required argument", `The argument "address" is required`, 1, 11},
	{"address without port", agentSrc("c", "10.77.1.3"), "Invalid agent address", `address must be HOST:PORT, such as "10.77.1.3:7470"`, 2, 13},
	{"port zero", agentSrc("c", "10.77.1.3:0"), "Invalid agent address", `The port of address "10.77.1.3:0" must be a number from 1 to 65535; got "0".`, 2, 13},
	{"port too large", agentSrc("c", "10.77.1.3:70000"), "Invalid agent address", "must be a number from 1 to 65535", 2, 13},
	{"port not a number", agentSrc("c", "10.77.1.3:http"), "Invalid agent address", `got "http"`, 2, 13},
	{"IPv6 without brackets", agentSrc("c", "fd77::3:7470"), "Invalid agent address", `in brackets: "[fd77::3]:7470"`, 2, 13},
	{"no host", agentSrc("c", ":7470"), "Invalid agent address", `The host of address ":7470" must be`, 2, 13},
	{"bad host", agentSrc("c", "10.77.1.300:7470"), "Invalid agent address", `got "10.77.1.300"`, 2, 13},
	{"unknown block", `agent "c" {
  address = "10.77.1.3:7470"` + agentTLS + `
  tsl {}
}`, "Unsupported block type", `Did you mean "tls"?`, 8, 3},
	{"unknown tls attribute", `agent "c" {
  address = "10.77.1.3:7470"
  tls {
    ca_file   = "ca.pem"
    cert_file = "c.pem"
    key_file  = "k.pem"
    servername = "x"
  }
}`, "Unsupported argument", `Did you mean "server_name"?`, 7, 5},
	{"duplicate agent", agentSrc("c", "10.77.1.3:7470") + agentSrc("c", "10.77.1.4:7470"),
		"Duplicate agent \"c\"", `An agent "c" was already declared at main.rdma.hcl:1,1-10.`, 9, 1},
	{"duplicate address", agentSrc("c", "10.77.1.3:7470") + agentSrc("d", "10.77.1.3:7470"),
		"Duplicate agent address", "agent.d and agent.c (declared at main.rdma.hcl:1,1-10) both have the address 10.77.1.3:7470", 10, 13},
	{"duplicate IPv6 address spelt otherwise", agentSrc("c", "[fd77::3]:7470") + agentSrc("d", "[FD77:0::3]:7470"),
		"Duplicate agent address", "agent.d and agent.c", 10, 13},
	{"agent uses an object", agentSrc("c", "10.77.1.3:7470") + okListener + `
agent "d" {
  address = "${listener.l.address}:7470"` + agentTLS + `
}`, "Invalid reference in an agent block", "not listener.l", 16, 16},
	{"undeclared agent", agentSrc("compute", "10.77.1.3:7470") + `
listener "l" {
  agent   = agent.compte
  address = "10.77.0.1"
  port    = 7471
}`, "Reference to undeclared agent", `An agent named "compte" is not declared in this configuration. Did you mean "compute"?`, 11, 13},
	{"agent as a string", agentSrc("compute", "10.77.1.3:7470") + `
listener "l" {
  agent   = "agent.compute"
  address = "10.77.0.1"
  port    = 7471
}`, "Invalid agent reference", "not a value: write it without quotes", 11, 13},
	{"agent as another reference", agentSrc("compute", "10.77.1.3:7470") + `
locals {
  a = "x"
}
listener "l" {
  agent   = local.a
  address = "10.77.0.1"
  port    = 7471
}`, "Invalid agent reference", "such as agent.compute or agent.storage[each.key]", 14, 13},
	{"agent attribute", agentSrc("compute", "10.77.1.3:7470") + `
listener "l" {
  agent   = agent.compute.address
  address = "10.77.0.1"
  port    = 7471
}`, "Invalid agent reference", "such as agent.compute", 11, 13},
	{"for_each agent without a key", `locals {
  storage = { s1 = "10.77.1.1", s2 = "10.77.1.2" }
}
agent "storage" {
  for_each = local.storage
  address  = "${each.value}:7470"` + agentTLS + `
}
listener "l" {
  agent   = agent.storage
  address = "10.77.0.1"
  port    = 7471
}`, "Missing agent instance key", `agent.storage has for_each, so an object chooses one of its instances: write agent.storage[each.key]. Its keys are "s1" and "s2".`, 14, 13},
	{"for_each agent with a missing key", `locals {
  storage = { s1 = "10.77.1.1", s2 = "10.77.1.2" }
}
agent "storage" {
  for_each = local.storage
  address  = "${each.value}:7470"` + agentTLS + `
}
listener "l" {
  for_each = toset(["s1", "s3"])
  agent    = agent.storage[each.key]
  address  = "10.77.0.1"
  port     = 7471
}`, "No such agent instance", `There is no agent.storage["s3"]. Its keys are "s1" and "s2".`, 15, 28},
	{"for_each agent with a literal missing key", `locals {
  storage = { s1 = "10.77.1.1" }
}
agent "storage" {
  for_each = local.storage
  address  = "${each.value}:7470"` + agentTLS + `
}
listener "l" {
  agent   = agent.storage["s9"]
  address = "10.77.0.1"
  port    = 7471
}`, "No such agent instance", `There is no agent.storage["s9"]. Its only key is "s1".`, 14, 26},
	{"count agent out of range", `agent "r" {
  count   = 2
  address = "10.77.1.${count.index + 1}:7470"` + agentTLS + `
}
listener "l" {
  agent   = agent.r[2]
  address = "10.77.0.1"
  port    = 7471
}`, "No such agent instance", "There is no agent.r[2]. Its indexes are 0 and 1.", 11, 20},
	{"index on a single agent", agentSrc("compute", "10.77.1.3:7470") + `
listener "l" {
  agent   = agent.compute["x"]
  address = "10.77.0.1"
  port    = 7471
}`, "Unexpected agent index", "agent.compute has neither count nor for_each, so it is not indexed: write agent.compute.", 11, 26},
	{"each in an agent index without for_each", agentSrc("compute", "10.77.1.3:7470") + `
listener "l" {
  agent   = agent.compute[each.key]
  address = "10.77.0.1"
  port    = 7471
}`, "Unexpected agent index", "agent.compute has neither count nor for_each, so it is not indexed: write agent.compute.", 11, 27},
	{"same address and port on one agent", agentSrc("a", "10.77.1.1:7470") + `
listener "x" {
  agent   = agent.a
  address = "10.77.0.1"
  port    = 7471
}
listener "y" {
  agent   = agent.a
  address = "10.77.0.1"
  port    = 7471
}`, "Duplicate listener address", "listener.y and listener.x (declared at main.rdma.hcl:10,1-13) both listen on 10.77.0.1 port 7471 (tcp) on agent.a; only one can bind it.", 18, 13},
	{"wildcard and address on one agent", agentSrc("a", "10.77.1.1:7470") + `
listener "x" {
  agent   = agent.a
  address = "0.0.0.0"
  port    = 7471
}
listener "y" {
  agent   = agent.a
  address = "10.77.0.1"
  port    = 7471
}`, "Listeners on the same port", "both listen on port 7471 (tcp) on agent.a, and listener.x listens on every address", 18, 13},
	{"pd on another agent", agentSrc("a", "10.77.1.1:7470") + agentSrc("b", "10.77.1.2:7470") + `
protection_domain "p" {
  agent  = agent.a
  device = "rxe0"
}
listener "l" {
  agent   = agent.b
  address = "10.77.0.1"
  port    = 7471
  pd      = protection_domain.p.id
}`, "Protection domain on another agent", "listener.l is on agent.b, but its pd is the id of protection_domain.p, which is on agent.a: a protection domain belongs to one host's device", 26, 13},
	{"pd on an agent, object on the local one", agentSrc("a", "10.77.1.1:7470") + `
protection_domain "p" {
  agent  = agent.a
  device = "rxe0"
}
endpoint "e" {
  address = "10.77.0.1"
  port    = 7471
  pd      = protection_domain.p.id
}`, "Protection domain on another agent", "endpoint.e is on the local agent, but its pd is the id of protection_domain.p, which is on agent.a", 17, 13},
	{"pd chosen by key on another agent", `locals {
  hosts = { s1 = "10.77.1.1", s2 = "10.77.1.2" }
}
agent "s" {
  for_each = local.hosts
  address  = "${each.value}:7470"` + agentTLS + `
}
protection_domain "p" {
  for_each = local.hosts
  agent    = agent.s[each.key]
  device   = "rxe0"
}
listener "l" {
  for_each = local.hosts
  agent    = agent.s["s1"]
  address  = each.value
  port     = 7471
  pd       = protection_domain.p[each.key].id
}`, "Protection domain on another agent", `listener.l["s2"] is on agent.s["s1"], but its pd is the id of protection_domain.p["s2"], which is on agent.s["s2"]`, 23, 14},
	{"agent attribute in an expression", agentSrc("c", "10.77.1.3:7470") + `
output "x" {
  value = agent.c.adress
}`, "Unsupported attribute", `An agent has no attribute named "adress". Did you mean "address"?`, 11, 18},
}

func TestAgentRules(t *testing.T) {
	for _, tc := range agentRuleCases {
		t.Run(tc.name, func(t *testing.T) {
			l := NewLoader()
			_, diags := l.LoadSources(map[string][]byte{"main.rdma.hcl": []byte(tc.src)}, VarInputs{})
			var found bool
			for _, d := range diags {
				if d.Summary != tc.summary || !strings.Contains(d.Detail, tc.detail) {
					continue
				}
				found = true
				if d.Subject == nil {
					t.Errorf("diagnostic has no subject")
				} else if d.Subject.Filename != "main.rdma.hcl" || d.Subject.Start.Line != tc.line || d.Subject.Start.Column != tc.col {
					t.Errorf("subject = %s, want main.rdma.hcl:%d,%d", d.Subject, tc.line, tc.col)
				}
			}
			var b strings.Builder
			_ = l.WriteDiagnostics(&b, diags, false, 0)
			if !found {
				t.Fatalf("no diagnostic %q containing %q; got:\n%s", tc.summary, tc.detail, b.String())
			}
			if len(diags) != 1 {
				t.Errorf("%d diagnostics, want exactly 1 (no cascades):\n%s", len(diags), b.String())
			}
		})
	}
}

// TestAgentUnknownAttribute: HCL's own diagnostic, with its suggestion
// (and its report of the required address, which the misspelling lacks).
func TestAgentUnknownAttribute(t *testing.T) {
	_, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(`agent "c" {
  adress = "10.77.1.3:7470"` + agentTLS + `
}`)}, VarInputs{})
	for _, d := range diags {
		if d.Summary == "Unsupported argument" && strings.Contains(d.Detail, `Did you mean "address"?`) && d.Subject.Start.Line == 2 && d.Subject.Start.Column == 3 {
			return
		}
	}
	t.Fatalf("no suggestion of address at 2:3 in %v", diags)
}

// TestAgentDiagnosticShowsTheSource: an agent error is rendered with its
// file:line:col and the offending source, as every other.
func TestAgentDiagnosticShowsTheSource(t *testing.T) {
	l := NewLoader()
	_, diags := l.LoadSources(map[string][]byte{"main.rdma.hcl": []byte(agentSrc("compute", "10.77.1.3:7470") + `
listener "l" {
  agent   = agent.compte
  address = "10.77.0.1"
  port    = 7471
}`)}, VarInputs{})
	var b strings.Builder
	_ = l.WriteDiagnostics(&b, diags, false, 0)
	for _, want := range []string{"Error: Reference to undeclared agent", "on main.rdma.hcl:11:13", "agent   = agent.compte", `Did you mean "compute"?`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %q in:\n%s", want, b.String())
		}
	}
}

func TestValidateWithUnknownAgentKeys(t *testing.T) {
	l := NewLoader()
	l.Validate = true
	_, diags := l.LoadSources(map[string][]byte{"main.rdma.hcl": []byte(`
variable "hosts" {
  type = map(string)
}
agent "s" {
  for_each = var.hosts
  address  = "${each.value}:7470"` + agentTLS + `
}
listener "l" {
  for_each = var.hosts
  agent    = agent.s[each.key]
  address  = each.value
  port     = 7471
}
`)}, VarInputs{})
	if len(diags) > 0 {
		t.Fatal(diags)
	}
}

func TestFormatAgentBlock(t *testing.T) {
	src := `agent "storage" {
for_each = local.storage
address = "${each.value}:7470"
tls {
ca_file = "pki/ca.pem"
cert_file = "pki/operator.pem"
key_file = "pki/operator-key.pem"
}
}
listener "l" {
agent = agent.storage["s1"]
address = "10.77.1.1"
port = 7471
}
`
	want := `agent "storage" {
  for_each = local.storage
  address  = "${each.value}:7470"
  tls {
    ca_file   = "pki/ca.pem"
    cert_file = "pki/operator.pem"
    key_file  = "pki/operator-key.pem"
  }
}
listener "l" {
  agent   = agent.storage["s1"]
  address = "10.77.1.1"
  port    = 7471
}
`
	got, diags := NewLoader().Format([]byte(src), "main.rdma.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if string(got) != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestAgentOverride: an override file changes an agent block, and an
// object's agent, as any other block's arguments.
func TestAgentOverride(t *testing.T) {
	cfg := mustLoad(t, map[string]string{
		"main.rdma.hcl": agentSrc("a", "10.77.1.1:7470") + agentSrc("b", "10.77.1.2:7470") + `
listener "l" {
  agent   = agent.a
  address = "10.77.0.1"
  port    = 7471
}
`,
		"local_override.rdma.hcl": `
agent "b" {
  address = "10.77.1.9:7470"
}
listener "l" {
  agent = agent.b
}
`})
	if a := cfg.Agents["agent.b"]; a == nil || a.Address != "10.77.1.9:7470" || a.TLS.CAFile != "pki/ca.pem" {
		t.Errorf("agent.b = %+v", a)
	}
	if got := instance(t, cfg, "listener.l").Agent; got != "agent.b" {
		t.Errorf("Agent = %q, want agent.b", got)
	}
}

// TestAgentInConsole: Config.Eval reads agents' attributes.
func TestAgentInConsole(t *testing.T) {
	cfg := mustLoad(t, map[string]string{"main.rdma.hcl": agentSrc("a", "10.77.1.1:7470")})
	expr, diags := hclsyntax.ParseExpression([]byte("agent.a.tls.ca_file"), "<console>", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	v, diags := cfg.Eval(expr)
	if diags.HasErrors() || !v.RawEquals(cty.StringVal("pki/ca.pem")) {
		t.Errorf("agent.a.tls.ca_file = %#v, %v", v, diags)
	}
	v, diags = cfg.EvalWith(expr, func(addrs.Instance) (cty.Value, bool) { return cty.NilVal, false })
	if diags.HasErrors() || !v.RawEquals(cty.StringVal("pki/ca.pem")) {
		t.Errorf("EvalWith: agent.a.tls.ca_file = %#v, %v", v, diags)
	}
}

// TestAgentInJSONSyntaxErrorPosition: a JSON agent reference is a string
// read as an expression; its errors point inside the string.
func TestAgentInJSONSyntaxErrorPosition(t *testing.T) {
	_, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.json": []byte(`{
  "agent": {"compute": {"address": "10.77.1.3:7470", "tls": {"ca_file": "a", "cert_file": "b", "key_file": "c"}}},
  "listener": {"l": {"agent": "agent.compte", "address": "10.77.0.1", "port": 7471}}
}`)}, VarInputs{})
	if len(diags) != 1 || diags[0].Summary != "Reference to undeclared agent" || !strings.Contains(diags[0].Detail, `Did you mean "compute"?`) {
		t.Fatalf("diags = %v", diags)
	}
	if s := diags[0].Subject; s.Start.Line != 3 || s.Start.Column != 32 || s.End.Column != 44 {
		t.Errorf("subject = %s, want 3,32-44 (agent.compte inside the quotes)", s)
	}
}

// TestInstanceWithKeepsTheAgent: apply's second evaluation of an instance
// keeps the agent it was loaded with.
func TestInstanceWithKeepsTheAgent(t *testing.T) {
	cfg, diags := Load("../examples/multi-host", VarInputs{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	addr := mustInstance(t, `endpoint.blocks["s2"]`)
	inst, diags := cfg.InstanceWith(addr, func(addrs.Instance) (cty.Value, bool) { return cty.NilVal, false })
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if inst.Agent != "agent.compute" {
		t.Errorf("Agent = %q, want agent.compute", inst.Agent)
	}
}
