package config

import (
	"strings"
	"testing"
	"time"
)

func loadFiles(t *testing.T, files map[string]string) (*Config, string) {
	t.Helper()
	srcs := map[string][]byte{}
	for n, s := range files {
		srcs[n] = []byte(s)
	}
	cfg, diags := NewLoader().LoadSources(srcs, VarInputs{})
	var msgs []string
	for _, d := range diags {
		where := ""
		if d.Subject != nil {
			where = d.Subject.String() + ": "
		}
		msgs = append(msgs, where+d.Summary+": "+d.Detail)
	}
	return cfg, strings.Join(msgs, "\n")
}

const overrideBase = `
rdmaform {
  agent {
    namespace = "base"
  }
}
variable "port" {
  default = 7471
}
locals {
  depth = 4
  kept  = "yes"
}
listener "l" {
  address = "10.77.0.1"
  port    = var.port
  accept {
    echo            = true
    max_connections = 8
  }
  qp {}
}
endpoint "e" {
  port = listener.l.port
  connect {
    initiator_depth = local.depth
  }
}
output "kept" {
  value = local.kept
}
`

// An override file's arguments replace the base block's, its nested
// blocks replace the base's of the same type, and what it leaves out is
// kept; an argument the base lacks (endpoint e's address) may come from
// the override; locals, variables and settings are overridden by name.
func TestOverrideFilesMergeIntoTheirBlocks(t *testing.T) {
	for _, over := range []struct{ name, src string }{
		{"override" + HCLSuffix, `
rdmaform {
  agent {
    namespace = "over"
  }
}
variable "port" {
  default = 7500
}
locals {
  depth = 2
}
listener "l" {
  accept {
    backlog_unused = null
  }
}
endpoint "e" {
  address = "10.77.0.1"
}
`},
		{"site_override" + JSONSuffix, `{
  "rdmaform": {"agent": {"namespace": "over"}},
  "variable": {"port": {"default": 7500}},
  "locals": {"depth": 2},
  "listener": {"l": {"accept": {"backlog_unused": null}}},
  "endpoint": {"e": {"address": "10.77.0.1"}}
}`},
	} {
		t.Run(over.name, func(t *testing.T) {
			src := strings.ReplaceAll(over.src, "backlog_unused = null", "max_connections = 2")
			src = strings.ReplaceAll(src, `"backlog_unused": null`, `"max_connections": 2`)
			cfg, msgs := loadFiles(t, map[string]string{"main" + HCLSuffix: overrideBase, over.name: src})
			if msgs != "" {
				t.Fatalf("load: %s", msgs)
			}
			l := instance(t, cfg, "listener.l").Listener
			if l.Port != 7500 || l.Accept.MaxConnections != 2 || l.Accept.Echo || l.QP == nil {
				t.Errorf("listener: port %d, accept %+v (the override's accept block replaces the base's: echo is back to false), qp %v", l.Port, l.Accept, l.QP)
			}
			e := instance(t, cfg, "endpoint.e").Endpoint
			if e.Address != "10.77.0.1" || e.Port != 7500 || e.Connect.InitiatorDepth != 2 {
				t.Errorf("endpoint: %+v", e)
			}
			if cfg.AgentNamespace() != "over" {
				t.Errorf("namespace %q", cfg.AgentNamespace())
			}
			if v := cfg.Outputs["kept"].Value; v.AsString() != "yes" {
				t.Errorf("a local the override leaves alone: %v", v)
			}
		})
	}
}

func TestOverrideFileErrors(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"no base block", `listener "nope" {
  port = 1
}`, `override.rdma.hcl:1,1-16: Missing base listener block to override`},
		{"no base local", `locals {
  nope = 1
}`, `override.rdma.hcl:2,3-7: Missing base local value definition to override`},
		{"moved", `moved {
  from = listener.a
  to   = listener.l
}`, `override.rdma.hcl:1,1-6: Unsupported override`},
		{"unknown argument", `listener "l" {
  prot = 1
}`, `override.rdma.hcl:2,3-7: Unsupported argument`},
		{"still no address", `endpoint "e" {
  port = 7
}`, `Missing required argument: The argument "address" is required, but neither the block nor its override sets it.`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, msgs := loadFiles(t, map[string]string{"main" + HCLSuffix: overrideBase, "override" + HCLSuffix: c.src})
			if !strings.Contains(msgs, c.want) {
				t.Errorf("got\n%s\nwant %q", msgs, c.want)
			}
		})
	}
}

func TestIsOverrideFile(t *testing.T) {
	for name, want := range map[string]bool{
		"override.rdma.hcl": true, "dir/override.rdma.json": true, "site_override.rdma.hcl": true,
		"main.rdma.hcl": false, "override2.rdma.hcl": false, "myoverride.rdma.hcl": false, "override.tf": false,
	} {
		if got := isOverrideFile(name); got != want {
			t.Errorf("%s: %v", name, got)
		}
	}
}

// As Terraform's: an override's lifecycle block is merged argument by
// argument, and a dynamic "probe" block replaces probe blocks (and is
// replaced by them) as a probe block would.
func TestOverrideMergesLifecycleAndDynamicBlocks(t *testing.T) {
	base := `
endpoint "e" {
  address = "10.77.0.1"
  port    = 7471
  qp {}
  probe {
    interval = "2s"
  }
  lifecycle {
    create_before_destroy = true
    ignore_changes        = [connect]
    prevent_destroy       = true
  }
}
endpoint "d" {
  address = "10.77.0.1"
  port    = 7471
  qp {}
  dynamic "probe" {
    for_each = ["3s"]
    content {
      interval = probe.value
    }
  }
}
`
	over := `
endpoint "e" {
  lifecycle {
    prevent_destroy = false
  }
  dynamic "probe" {
    for_each = []
    content {}
  }
}
endpoint "d" {
  probe {
    interval = "4s"
  }
}
`
	cfg, msgs := loadFiles(t, map[string]string{"main" + HCLSuffix: base, "main_override" + HCLSuffix: over})
	if msgs != "" {
		t.Fatalf("load: %s", msgs)
	}
	lc := instance(t, cfg, "endpoint.e").Resource.Lifecycle
	if lc.PreventDestroy || !lc.CreateBeforeDestroy || len(lc.IgnoreChanges) != 1 {
		t.Errorf("lifecycle after the override: %+v (want prevent_destroy false, the rest kept)", lc)
	}
	if e := instance(t, cfg, "endpoint.e").Endpoint; e.Probe != nil {
		t.Errorf("endpoint.e keeps a probe the empty dynamic block replaced: %+v", e.Probe)
	}
	if d := instance(t, cfg, "endpoint.d").Endpoint; d.Probe == nil || d.Probe.Interval != 4*time.Second {
		t.Errorf("endpoint.d's probe: %+v, want the override's 4s", d.Probe)
	}
}
