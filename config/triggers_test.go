package config

import (
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/config/addrs"
)

func TestReplaceTriggeredByDecodes(t *testing.T) {
	cfg := mustLoad(t, map[string]string{"main.rdma.hcl": `
listener "l" {
  address = "10.77.0.1"
  port    = 7471
}
endpoint "e" {
  for_each = toset(["a"])
  address  = "10.77.0.1"
  port     = 7471
  lifecycle {
    replace_triggered_by = [listener.l, listener.l.qp.max_send_wr, endpoint.f[0], endpoint.f[each.key].port]
  }
}
endpoint "f" {
  count   = 1
  address = "10.77.0.1"
  port    = 7471
}
`})
	r := cfg.Resources[mustInstance(t, "endpoint.e").Resource]
	var got []string
	for _, tr := range r.Lifecycle.ReplaceTriggeredBy {
		target, every, diags := tr.TriggerTarget(mustInstance(t, `endpoint.e["a"]`))
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		s := target.String()
		if every {
			s = tr.Resource.String() + "[*]"
		}
		for _, step := range tr.Attr {
			s += "." + step.(interface{ GoString() string }).GoString()
		}
		got = append(got, s)
	}
	want := `listener.l[*] | listener.l[*].cty.GetAttrStep{Name:"qp"}.cty.GetAttrStep{Name:"max_send_wr"} | endpoint.f[0] | endpoint.f["a"].cty.GetAttrStep{Name:"port"}`
	if strings.Join(got, " | ") != want {
		t.Errorf("triggers:\n%s\nwant\n%s", strings.Join(got, " | "), want)
	}
	if !strings.Contains(strings.Join(resourceStrs(r.DependsOn), " "), "listener.l") {
		t.Errorf("endpoint.e does not depend on what triggers it: %v", r.DependsOn)
	}
}

func mustInstance(t *testing.T, s string) addrs.Instance {
	t.Helper()
	a, err := addrs.ParseInstance(s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func resourceStrs(rs []addrs.Resource) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.String())
	}
	return out
}

func TestReplaceTriggeredByErrors(t *testing.T) {
	for _, c := range []struct{ entry, summary, detail string }{
		{"listener.lx", "Reference to undeclared resource", `refers to listener.lx, which is not declared. Did you mean "listener.l"?`},
		{"endpoint.e", "Self-referential replace_triggered_by", "its own changes"},
		{"var.x", "Invalid replace_triggered_by expression", "An entry references a protection_domain"},
		{"listener.l.nope", "Invalid replace_triggered_by expression", "An entry references"},
		{"listener.l[var.i]", "Invalid replace_triggered_by expression", "var is not allowed here"},
		{"\"listener.l\"", "Invalid replace_triggered_by expression", "An entry references"},
		{"endpoint.g", "Cycle: endpoint.e -> endpoint.g -> endpoint.e", "depend on one another"},
	} {
		_, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(`
variable "i" {
  default = 0
}
listener "l" {
  address = "10.77.0.1"
  port    = 7471
}
endpoint "g" {
  address = "10.77.0.1"
  port    = endpoint.e.port
}
endpoint "e" {
  address = "10.77.0.1"
  port    = 7471
  lifecycle {
    replace_triggered_by = [` + c.entry + `]
  }
}
`)}, VarInputs{})
		if !diags.HasErrors() || diags[0].Summary != c.summary || !strings.Contains(diags[0].Detail, c.detail) || diags[0].Subject == nil || diags[0].Subject.Start.Line != 17 {
			t.Errorf("replace_triggered_by = [%s]: got %v, want %q containing %q at line 17", c.entry, diags, c.summary, c.detail)
		}
	}
}

func TestReplaceTriggeredByInJSON(t *testing.T) {
	cfg, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.json": []byte(`{
  "listener": {"loop": {"address": "10.77.0.1", "port": 7471}},
  "endpoint": {"e": {"address": "10.77.0.1", "port": 7471,
    "lifecycle": {"replace_triggered_by": ["listener.loop", "listener.loop.port"]}}}
}`)}, VarInputs{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	ts := cfg.Resources[mustInstance(t, "endpoint.e").Resource].Lifecycle.ReplaceTriggeredBy
	if len(ts) != 2 || ts[0].Resource.String() != "listener.loop" || ts[0].Attr != nil || len(ts[1].Attr) != 1 {
		t.Errorf("triggers: %+v", ts)
	}
}
