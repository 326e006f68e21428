package config

import (
	"strings"
	"testing"
	"time"

	"github.com/rdmaform/rdmaform/config/addrs"
	"github.com/zclconf/go-cty/cty"
)

func mustLoad(t *testing.T, files map[string]string) *Config {
	t.Helper()
	src := map[string][]byte{}
	for k, v := range files {
		src[k] = []byte(v)
	}
	l := NewLoader()
	cfg, diags := l.LoadSources(src, VarInputs{})
	if len(diags) > 0 {
		var b stringsBuilder
		_ = l.WriteDiagnostics(&b, diags, false, 0)
		t.Fatalf("diagnostics:\n%s", b.String())
	}
	return cfg
}

func instance(t *testing.T, cfg *Config, addr string) *Instance {
	t.Helper()
	a, err := addrs.ParseInstance(addr)
	if err != nil {
		t.Fatal(err)
	}
	i := cfg.Instances[a]
	if i == nil {
		t.Fatalf("no instance %s", addr)
	}
	return i
}

func TestUnknownAfterApplyPropagates(t *testing.T) {
	cfg := mustLoad(t, map[string]string{"main.rdma.hcl": `
listener "l" {
  address = "10.77.0.1"
  port    = 7471
}
endpoint "e" {
  address = listener.l.local_address
  port    = listener.l.port
}
output "id" {
  value = listener.l.id
}
output "port" {
  value = endpoint.e.port
}
`})
	e := instance(t, cfg, "endpoint.e")
	if e.Known("address") || !e.Known("port") || e.Endpoint.Port != 7471 || e.Endpoint.Address != "" {
		t.Errorf("endpoint: known(address)=%v known(port)=%v %+v", e.Known("address"), e.Known("port"), e.Endpoint)
	}
	if v := cfg.Outputs["id"].Value; v.IsKnown() {
		t.Errorf("output id = %#v, want unknown", v)
	}
	if v := cfg.Outputs["port"].Value; !v.RawEquals(cty.NumberIntVal(7471)) {
		t.Errorf("output port = %#v", v)
	}
}

func TestDefaultsFilled(t *testing.T) {
	cfg := mustLoad(t, map[string]string{"main.rdma.hcl": `
listener "l" {
  address = "10.77.0.1"
  port    = 7471
}
listener "u" {
  address    = "10.77.0.1"
  port       = 7471
  port_space = "udp"
  qp {}
}
endpoint "e" {
  address = "10.77.0.1"
  port    = 7472
  qp {}
  probe {}
  reconnect {}
}
endpoint "quick" {
  address = "10.77.0.1"
  port    = 7472
  timeouts {
    create = "5s"
  }
}
endpoint "timeouts_defaults" {
  address = "10.77.0.1"
  port    = 7472
  timeouts {}
}
`})
	if d := instance(t, cfg, "endpoint.quick").Endpoint.CreateTimeout; d != 5*time.Second {
		t.Errorf("timeouts.create = %v", d)
	}
	if d := instance(t, cfg, "endpoint.timeouts_defaults").Endpoint.CreateTimeout.String(); d != DefaultCreateTimeout {
		t.Errorf("timeouts {} gives create = %v", d)
	}
	if d := instance(t, cfg, "endpoint.e").Endpoint.CreateTimeout; d != 0 {
		t.Errorf("no timeouts block gives create = %v, want 0 (the agent's)", d)
	}
	l := instance(t, cfg, "listener.l").Listener
	if l.PortSpace != PortSpaceTCP || l.Backlog != DefaultBacklog || l.QP != nil || l.Accept.ResponderResources != FromDevice || l.Accept.InitiatorDepth != FromDevice || l.Accept.MaxConnections != DefaultMaxConnections {
		t.Errorf("listener defaults = %+v", l)
	}
	if u := instance(t, cfg, "listener.u").Listener; u.QP == nil || u.QP.Type != QPTypeUD || u.QP.MaxSendWR != DefaultMaxWR {
		t.Errorf("udp listener qp = %+v", u.QP)
	}
	// A datagram listener makes no connections: no default limit, in its
	// value (as the plan shows it) either.
	if u := instance(t, cfg, "listener.u"); u.Listener.Accept.MaxConnections != 0 || !u.Value.GetAttr("accept").GetAttr("max_connections").IsNull() {
		t.Errorf("udp listener max_connections = %d, value %#v", u.Listener.Accept.MaxConnections, u.Value.GetAttr("accept"))
	}
	if v := instance(t, cfg, "listener.l").Value.GetAttr("accept").GetAttr("max_connections"); !v.RawEquals(cty.NumberIntVal(DefaultMaxConnections)) {
		t.Errorf("listener max_connections value = %#v", v)
	}
	e := instance(t, cfg, "endpoint.e").Endpoint
	if e.QP.Type != QPTypeRC || e.Connect.RetryCount != 7 || e.Connect.RNRRetryCount != 7 || e.Connect.Timeout.String() != "2s" ||
		e.Probe.Interval.String() != "1s" || e.Probe.Size != 64 || e.Probe.Timeout.String() != "1s" ||
		e.Reconnect.MinBackoff.String() != "1s" || e.Reconnect.MaxBackoff.String() != "30s" {
		t.Errorf("endpoint defaults = %+v qp %+v probe %+v reconnect %+v", e, e.QP, e.Probe, e.Reconnect)
	}
	// The value seen by references has the defaults too.
	if v := instance(t, cfg, "endpoint.e").Value.GetAttr("qp").GetAttr("type"); !v.RawEquals(cty.StringVal("rc")) {
		t.Errorf("qp.type value = %#v", v)
	}
}

func TestRequiresReplace(t *testing.T) {
	for _, tc := range []struct {
		kind addrs.Kind
		path cty.Path
		want bool
	}{
		{addrs.Listener, cty.GetAttrPath("address"), true},
		{addrs.Listener, cty.GetAttrPath("port"), true},
		{addrs.Listener, cty.GetAttrPath("port_space"), true},
		{addrs.Listener, cty.GetAttrPath("pd"), true},
		{addrs.Listener, cty.GetAttrPath("qp"), true},
		{addrs.Listener, cty.GetAttrPath("qp").GetAttr("max_send_wr"), true},
		{addrs.Listener, cty.GetAttrPath("accept").GetAttr("max_connections"), false},
		{addrs.Endpoint, cty.GetAttrPath("timeouts").GetAttr("create"), false},
		{addrs.Listener, cty.GetAttrPath("accept").GetAttr("echo"), true},
		{addrs.Listener, cty.GetAttrPath("accept").GetAttr("private_data"), true},
		{addrs.Endpoint, cty.GetAttrPath("reconnect"), false},
		{addrs.Endpoint, cty.GetAttrPath("reconnect").GetAttr("max_backoff"), false},
		{addrs.Endpoint, cty.GetAttrPath("probe").GetAttr("interval"), false},
		{addrs.Endpoint, cty.GetAttrPath("connect").GetAttr("private_data"), true},
		{addrs.Endpoint, cty.GetAttrPath("source_address"), true},
		{addrs.ProtectionDomain, cty.GetAttrPath("device"), true},
		{addrs.Endpoint, cty.GetAttrPath("nonsense"), false},
	} {
		if got := RequiresReplace(tc.kind, tc.path); got != tc.want {
			t.Errorf("RequiresReplace(%s, %#v) = %v, want %v", tc.kind, tc.path, got, tc.want)
		}
	}
}

func TestForEachAndLifecycle(t *testing.T) {
	cfg := mustLoad(t, map[string]string{"main.rdma.hcl": `
endpoint "e" {
  for_each = toset(["b", "a"])
  address  = "10.77.0.1"
  port     = each.key == "a" ? 7471 : 7472
  qp {}
  lifecycle {
    prevent_destroy = true
    ignore_changes  = [qp[0].max_send_wr, probe, connect["timeout"]]
  }
}
endpoint "f" {
  address    = endpoint.e["a"].address
  port       = 7471
  depends_on = [endpoint.e]
  lifecycle {
    ignore_changes = all
  }
}
`})
	a := instance(t, cfg, `endpoint.e["a"]`)
	b := instance(t, cfg, `endpoint.e["b"]`)
	if a.Endpoint.Port != 7471 || b.Endpoint.Port != 7472 {
		t.Errorf("ports a=%d b=%d", a.Endpoint.Port, b.Endpoint.Port)
	}
	lc := a.Resource.Lifecycle
	if !lc.PreventDestroy || lc.CreateBeforeDestroy || len(lc.IgnoreChanges) != 3 ||
		!lc.IgnoreChanges[0].Equals(cty.GetAttrPath("qp").GetAttr("max_send_wr")) || !lc.IgnoreChanges[1].Equals(cty.GetAttrPath("probe")) ||
		!lc.IgnoreChanges[2].Equals(cty.GetAttrPath("connect").GetAttr("timeout")) {
		t.Errorf("lifecycle = %+v", lc)
	}
	f := instance(t, cfg, "endpoint.f")
	if !f.Resource.Lifecycle.IgnoreAllChanges || len(f.Resource.DependsOn) != 1 || f.Resource.DependsOn[0].String() != "endpoint.e" {
		t.Errorf("f: lifecycle %+v depends on %v", f.Resource.Lifecycle, f.Resource.DependsOn)
	}
	order := cfg.SortedInstances()
	if len(order) != 3 || order[0].Addr.String() != `endpoint.e["a"]` || order[2].Addr.String() != "endpoint.f" {
		t.Errorf("order = %v", order)
	}
}

func TestDependenciesThroughLocals(t *testing.T) {
	cfg := mustLoad(t, map[string]string{"main.rdma.hcl": `
protection_domain "pd" {
  device = "rxe0"
}
listener "l" {
  address = local.addr
  port    = 7471
  pd      = local.pd
}
locals {
  addr = "10.77.0.1"
  pd   = protection_domain.pd.id
}
`})
	l := instance(t, cfg, "listener.l")
	if len(l.Resource.DependsOn) != 1 || l.Resource.DependsOn[0].String() != "protection_domain.pd" {
		t.Errorf("DependsOn = %v", l.Resource.DependsOn)
	}
	if l.Known("pd") || !l.Known("address") {
		t.Errorf("known pd=%v address=%v", l.Known("pd"), l.Known("address"))
	}
}

func TestJSONSyntax(t *testing.T) {
	cfg := mustLoad(t, map[string]string{
		"main.rdma.json": `{
  "listener": {"l": {"address": "10.77.0.1", "port": 7471, "qp": {"max_send_wr": 8}}},
  "endpoint": {"e": {"count": 2, "address": "${listener.l.address}", "port": "${listener.l.port + count.index}"}}
}`,
	})
	if l := instance(t, cfg, "listener.l").Listener; l.QP == nil || l.QP.MaxSendWR != 8 {
		t.Errorf("listener = %+v", l)
	}
	if e := instance(t, cfg, "endpoint.e[1]").Endpoint; e.Address != "10.77.0.1" || e.Port != 7472 {
		t.Errorf("endpoint = %+v", e)
	}
}

func TestFunctions(t *testing.T) {
	cfg := mustLoad(t, map[string]string{"main.rdma.hcl": `
locals {
  host    = cidrhost("10.77.0.0/24", 1)
  last    = cidrhost("10.77.0.0/24", -2)
  mask    = cidrnetmask("10.77.0.0/24")
  sub     = cidrsubnet("10.77.0.0/16", 8, 3)
  six     = cidrhost("fd00::/64", 10)
  upper   = upper(format("%s-%03d", "ep", 7))
  safe    = try(tonumber("x"), 5)
  ok      = can(regex("^10\\.", "10.77.0.1"))
  b64     = base64decode(base64encode("hi"))
  n       = length(range(4))
}
`})
	want := map[string]cty.Value{
		"host": cty.StringVal("10.77.0.1"), "last": cty.StringVal("10.77.0.254"), "mask": cty.StringVal("255.255.255.0"),
		"sub": cty.StringVal("10.77.3.0/24"), "six": cty.StringVal("fd00::a"), "upper": cty.StringVal("EP-007"),
		"safe": cty.NumberIntVal(5), "ok": cty.True, "b64": cty.StringVal("hi"), "n": cty.NumberIntVal(4),
	}
	for k, w := range want {
		if got := cfg.Locals[k]; !got.RawEquals(w) {
			t.Errorf("local.%s = %#v, want %#v", k, got, w)
		}
	}
}

// TestParallelLevel loads enough independent blocks to be evaluated
// concurrently (run with -race), including errors, and checks the result
// is complete and the diagnostics deterministic.
func TestParallelLevel(t *testing.T) {
	files := distinctShape(300)
	files["bad.rdma.hcl"] = `
endpoint "bad" {
  count   = 3
  address = listener.l.address
  port    = listener.l.port + 70000
}
locals {
  a = listener.l.port
  b = local.a + 1
}
`
	var first string
	for i := 0; i < 3; i++ {
		l := NewLoader()
		src := map[string][]byte{}
		for k, v := range files {
			src[k] = []byte(v)
		}
		cfg, diags := l.LoadSources(src, VarInputs{})
		if len(cfg.Instances) != 1+300+3 {
			t.Fatalf("%d instances", len(cfg.Instances))
		}
		if got := cfg.Locals["b"]; !got.RawEquals(cty.NumberIntVal(7472)) {
			t.Errorf("local.b = %#v", got)
		}
		var b stringsBuilder
		_ = l.WriteDiagnostics(&b, diags, false, 0)
		if i == 0 {
			first = b.String()
			if len(diags) != 1 { // the three instances share one diagnostic
				t.Fatalf("diagnostics:\n%s", first)
			}
		} else if b.String() != first {
			t.Fatalf("diagnostics differ between runs:\n%s\n---\n%s", first, b.String())
		}
	}
}

// A directory without configuration files is named in full: after
// -chdir=DIR, "The directory ." did not say which one was meant.
func TestNoConfigurationFilesNamesTheDirectory(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	_, diags := NewLoader().Load(".", VarInputs{})
	if len(diags) != 1 || diags[0].Summary != "No configuration files" {
		t.Fatalf("diags = %v", diags)
	}
	if want := "The directory " + dir + " contains no"; !strings.HasPrefix(diags[0].Detail, want) {
		t.Errorf("detail %q, want it to start with %q", diags[0].Detail, want)
	}
}

// Terraform's top-level blocks, and a directory of Terraform files, say
// what rdmaform has instead.
func TestTerraformBlocksAndFilesPointAtRdmaformsOwn(t *testing.T) {
	_, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte("terraform {}\nresource \"listener\" \"l\" {}\n")}, VarInputs{})
	if len(diags) != 2 || !strings.Contains(diags[0].Detail, "rdmaform's settings block is rdmaform {") || !strings.Contains(diags[1].Detail, `listener "NAME"`) {
		t.Errorf("%v", diags)
	}
	dir := writeDir(t, map[string]string{"main.tf": "terraform {}\n"})
	if _, diags := Load(dir, VarInputs{}); len(diags) != 1 || !strings.Contains(diags[0].Detail, "It has main.tf: rdmaform reads only files named *.rdma.hcl") {
		t.Errorf("%v", diags)
	}
}

// A file that does not parse reports its syntax error alone: the other
// files' references to its blocks are not reported as undeclared.
func TestSyntaxErrorHidesItsConsequences(t *testing.T) {
	_, diags := NewLoader().LoadSources(map[string][]byte{
		"main.rdma.hcl": []byte(`
endpoint "e" {
  address = "10.77.0.1"
  port    = 7471
  reconnect { min_backoff = "100ms" max_backoff = "500ms" }
}
`),
		"imports.rdma.hcl": []byte(`
import {
  to = endpoint.e
  id = "endpoint.e"
}
output "qp" {
  value = endpoint.e.qp_num
}
`),
	}, VarInputs{})
	if len(diags) != 1 || diags[0].Summary != "Invalid single-argument block definition" || diags[0].Subject.Filename != "main.rdma.hcl" {
		t.Fatalf("diagnostics: %v", diags)
	}
}
