package config

import (
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/config/addrs"
)

const workspaceConfig = `
rdmaform {
  agent {
    namespace = "storage"
  }
}
locals {
  base = rdmaform.workspace == "default" ? 7471 : 7500
}
listener "l" {
  address = "10.77.0.1"
  port    = local.base
}
output "where" {
  value = "${rdmaform.workspace}:${listener.l.port}"
}
`

// rdmaform.workspace is the selected workspace (default when none is),
// in locals, blocks and outputs; a workspace other than the default
// qualifies the agent namespace.
func TestWorkspaceInExpressions(t *testing.T) {
	for _, c := range []struct {
		workspace, port, where, namespace string
	}{
		{"", "7471", "default:7471", "storage"},
		{"default", "7471", "default:7471", "storage"},
		{"staging", "7500", "staging:7500", "storage.staging"},
	} {
		l := NewLoader()
		l.Workspace = c.workspace
		cfg, diags := l.LoadSources(map[string][]byte{"main" + HCLSuffix: []byte(workspaceConfig)}, VarInputs{})
		if diags.HasErrors() {
			t.Fatalf("workspace %q: %v", c.workspace, diags)
		}
		inst := cfg.Instances[addrs.Instance{Resource: addrs.Resource{Kind: addrs.Listener, Name: "l"}}]
		if got := inst.Value.GetAttr("port").AsBigFloat().String(); got != c.port {
			t.Errorf("workspace %q: port %s, want %s", c.workspace, got, c.port)
		}
		if got := cfg.Outputs["where"].Value.AsString(); got != c.where {
			t.Errorf("workspace %q: output %q, want %q", c.workspace, got, c.where)
		}
		if got := cfg.AgentNamespace(); got != c.namespace {
			t.Errorf("workspace %q: namespace %q, want %q", c.workspace, got, c.namespace)
		}
	}
}

func TestWorkspaceWithoutNamespace(t *testing.T) {
	l := NewLoader()
	l.Workspace = "dev"
	cfg, diags := l.LoadSources(map[string][]byte{"main" + HCLSuffix: []byte(`listener "l" {
  address = "10.77.0.1"
  port    = 7471
}`)}, VarInputs{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if got := cfg.AgentNamespace(); got != "dev" {
		t.Errorf("namespace %q, want dev", got)
	}
}

// terraform.workspace, written by habit, is pointed to rdmaform's name;
// rdmaform has nothing but workspace.
func TestWorkspaceReferenceErrors(t *testing.T) {
	for _, c := range []struct{ expr, want string }{
		{"terraform.workspace", "rdmaform's name for Terraform's terraform.workspace is rdmaform.workspace"},
		{"rdmaform.version", "rdmaform has only rdmaform.workspace"},
		{"rdmaform", "rdmaform has only rdmaform.workspace"},
	} {
		_, diags := NewLoader().LoadSources(map[string][]byte{"main" + HCLSuffix: []byte(`output "o" {
  value = ` + c.expr + `
}`)}, VarInputs{})
		if !diags.HasErrors() || !strings.Contains(diags.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.expr, diags, c.want)
		}
	}
}
