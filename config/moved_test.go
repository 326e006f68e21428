package config

import (
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/config/addrs"
)

func TestMovedBlocks(t *testing.T) {
	cfg := mustLoad(t, map[string]string{"main.rdma.hcl": `
listener "main" {
  address = "10.77.0.1"
  port    = 7471
}
endpoint "clients" {
  for_each = toset(["a", "b"])
  address  = listener.main.address
  port     = listener.main.port
}
moved {
  from = listener.loop
  to   = listener.main
}
moved {
  from = endpoint.client[0]
  to   = endpoint.clients["a"]
}
`})
	if len(cfg.Moved) != 2 {
		t.Fatalf("%d moved blocks, want 2", len(cfg.Moved))
	}
	whole, one := cfg.Moved[0], cfg.Moved[1]
	loop0 := addrs.Resource{Kind: addrs.Listener, Name: "loop"}.Instance(addrs.NoKey)
	if to, ok := whole.Target(loop0); !whole.Whole || !ok || to.String() != "listener.main" {
		t.Errorf("whole move of listener.loop: %+v -> %v %v", whole, to, ok)
	}
	c0 := addrs.Resource{Kind: addrs.Endpoint, Name: "client"}.Instance(addrs.IntKey(0))
	if to, ok := one.Target(c0); one.Whole || !ok || to.String() != `endpoint.clients["a"]` {
		t.Errorf("move of endpoint.client[0]: %+v -> %v %v", one, to, ok)
	}
	if _, ok := one.Target(addrs.Resource{Kind: addrs.Endpoint, Name: "client"}.Instance(addrs.IntKey(1))); ok {
		t.Error("the move of endpoint.client[0] applies to endpoint.client[1]")
	}
}

// A block moved to one of its instances is its single object moving, as
// Terraform's "from = aws_instance.a  to = aws_instance.a[0]".
func TestMovedBlockToAnInstance(t *testing.T) {
	cfg := mustLoad(t, map[string]string{"main.rdma.hcl": "moved {\n  from = listener.a\n  to   = listener.a[0]\n}\n"})
	m := cfg.Moved[0]
	a := addrs.Resource{Kind: addrs.Listener, Name: "a"}
	if to, ok := m.Target(a.Instance(addrs.NoKey)); m.Whole || !ok || to != a.Instance(addrs.IntKey(0)) {
		t.Errorf("listener.a to listener.a[0]: %+v -> %v %v", m, to, ok)
	}
	if _, ok := m.Target(a.Instance(addrs.IntKey(1))); ok {
		t.Error("the move applies to listener.a[1]")
	}
}

func TestMovedBlockErrors(t *testing.T) {
	for _, c := range []struct{ body, summary, detail string }{
		{"from = listener.a\n  to = endpoint.a", "Invalid \"moved\" addresses", "A listener cannot move to an endpoint"},
		{"from = listener.a\n  to = listener.a", "Invalid \"moved\" addresses", "listener.a moves to itself"},
		{"from = \"listener.a\"\n  to = listener.b", "Invalid address", "written without quotes"},
		{"from = var.x\n  to = listener.b", "Invalid address", "must be the address of a protection_domain, listener or endpoint"},
		{"from = listener.a[1.5]\n  to = listener.b[0]", "Invalid address", "an index is a whole number or a string"},
		{"from = listener.kept\n  to = listener.b", "Moved object still exists", "a move from listener.kept, but that object is still declared at main.rdma.hcl:1"},
		{"to = listener.b", "Missing required argument", ""},
	} {
		_, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(
			"listener \"kept\" {\n  address = \"10.77.0.1\"\n  port = 1\n}\nmoved {\n  " + c.body + "\n}\n")}, VarInputs{})
		if !diags.HasErrors() || diags[0].Summary != c.summary || !strings.Contains(diags[0].Detail, c.detail) || diags[0].Subject == nil || diags[0].Subject.Start.Line < 5 {
			t.Errorf("moved { %s }: %v", c.body, diags)
		}
	}
}

// As Terraform's: one object moved to two places, two objects to one, and
// moves that come back where they started are refused; a chain is fine.
func TestAmbiguousOrCyclicMovesAreRefused(t *testing.T) {
	moved := func(pairs ...string) string {
		var b strings.Builder
		for i := 0; i < len(pairs); i += 2 {
			b.WriteString("moved {\n  from = " + pairs[i] + "\n  to   = " + pairs[i+1] + "\n}\n")
		}
		return b.String()
	}
	for _, c := range []struct {
		name, src, detail string
	}{
		{"two destinations", moved("endpoint.x", "endpoint.c", "endpoint.x", "endpoint.d"), "declared that endpoint.x moved to endpoint.c, but this statement instead declares that it moved to endpoint.d"},
		{"two sources", moved("endpoint.x", "endpoint.c", "endpoint.y", "endpoint.c"), "declared that endpoint.x moved to endpoint.c, but this statement instead declares that endpoint.y moved there"},
		{"cycle", moved("endpoint.a", "endpoint.b", "endpoint.b", "endpoint.a"), "endpoint.a to endpoint.b to endpoint.a"},
		{"longer cycle", moved("endpoint.a", "endpoint.b", "endpoint.b", "endpoint.c", "endpoint.c", "endpoint.a"), "endpoint.a to endpoint.b to endpoint.c to endpoint.a"},
	} {
		_, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(c.src)}, VarInputs{})
		found := false
		for _, d := range diags {
			found = found || strings.Contains(d.Detail, c.detail) && d.Subject != nil
		}
		if !diags.HasErrors() || !found {
			t.Errorf("%s: %v", c.name, diags)
		}
	}
	if _, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(moved("endpoint.a", "endpoint.b", "endpoint.b", "endpoint.c"))}, VarInputs{}); diags.HasErrors() {
		t.Errorf("a chain of moves is refused: %v", diags)
	}
}

func TestRemovedBlocks(t *testing.T) {
	cfg := mustLoad(t, map[string]string{"main.rdma.hcl": "removed {\n  from = endpoint.old\n  lifecycle {\n    destroy = false\n  }\n}\n"})
	r := cfg.Removed[0]
	if len(cfg.Removed) != 1 || !r.Whole || r.Destroy || !r.Matches(addrs.Resource{Kind: addrs.Endpoint, Name: "old"}.Instance(addrs.IntKey(3))) {
		t.Fatalf("removed %+v", cfg.Removed)
	}
	for body, want := range map[string]string{
		"removed {\n  from = endpoint.old\n}\n": "Missing lifecycle block",
		"listener \"kept\" {\n  address = \"10.77.0.1\"\n  port = 1\n}\nremoved {\n  from = listener.kept\n  lifecycle {\n    destroy = false\n  }\n}\n": "Removed object still exists",
		"removed {\n  from = endpoint.old\n  lifecycle {\n    destroy = \"no\"\n  }\n}\n":                                                                "destroy",
	} {
		_, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(body)}, VarInputs{})
		if !diags.HasErrors() || !strings.Contains(diags[0].Summary+": "+diags[0].Detail, want) {
			t.Errorf("%s: %v, want %q", body, diags, want)
		}
	}
}
