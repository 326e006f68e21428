package config

import (
	"strings"
	"testing"
)

func TestImportBlocks(t *testing.T) {
	cfg := mustLoad(t, map[string]string{"main.rdma.hcl": `
variable "site" {
  default = "a"
}
listener "main" {
  address = "10.77.0.1"
  port    = 7471
}
endpoint "clients" {
  for_each = toset(["a", "b"])
  address  = listener.main.address
  port     = listener.main.port
}
import {
  to = listener.main
}
import {
  to = endpoint.clients["a"]
  id = "endpoint.client[${0}]@${var.site}"
}
`})
	if len(cfg.Imports) != 2 {
		t.Fatalf("%d import blocks, want 2", len(cfg.Imports))
	}
	if im := cfg.Imports[0]; im.To.String() != "listener.main" || im.ID != "" {
		t.Errorf("first import: to %s, id %q; want listener.main and no id", im.To, im.ID)
	}
	if im := cfg.Imports[1]; im.To.String() != `endpoint.clients["a"]` || im.ID != "endpoint.client[0]@a" {
		t.Errorf("second import: to %s, id %q; want endpoint.clients[\"a\"] and endpoint.client[0]@a", im.To, im.ID)
	}
}

func TestImportBlockErrors(t *testing.T) {
	for _, c := range []struct{ body, summary, detail string }{
		{"to = listener.gone", "Configuration for import target does not exist", "declares no listener.gone"},
		{"to = endpoint.many", "Import target needs an index", "endpoint.many has count: name the instance to import, such as endpoint.many[0]."},
		{"to = endpoint.keyed", "Import target needs an index", `endpoint.keyed has for_each: name the instance to import, such as endpoint.keyed["b"].`},
		{"to = endpoint.many[2]", "Configuration for import target does not exist", "endpoint.many[2] is not one of endpoint.many's instances"},
		{"to = listener.kept\n  id = 3", "Invalid import id", "must be a string"},
		{"to = listener.kept\n  id = \"\"", "Invalid import id", "must not be empty"},
		{"to = listener.kept\n  id = var.secret", "Invalid import id", "must not be sensitive"},
		{"to = listener.kept\n  id = endpoint.many[0].qp_num", "Invalid import id", "must be known when planning"},
		{"to = \"listener.kept\"", "Invalid address", "written without quotes"},
		{"id = \"x\"", "Missing required argument", ""},
		{"to = listener.kept\n  from = listener.x", "Unsupported argument", ""},
	} {
		_, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(
			"listener \"kept\" {\n  address = \"10.77.0.1\"\n  port = 1\n}\n" +
				"variable \"secret\" {\n  default = \"s\"\n  sensitive = true\n}\n" +
				"endpoint \"many\" {\n  count = 2\n  address = \"10.77.0.1\"\n  port = 1\n}\n" +
				"endpoint \"keyed\" {\n  for_each = toset([\"c\", \"b\"])\n  address = \"10.77.0.1\"\n  port = 1\n}\n" +
				"import {\n  " + c.body + "\n}\n")}, VarInputs{})
		if !diags.HasErrors() || diags[0].Summary != c.summary || !strings.Contains(diags[0].Detail, c.detail) || diags[0].Subject == nil || diags[0].Subject.Start.Line < 14 {
			t.Errorf("import { %s }: got %v, want %q containing %q at line 14 or later", c.body, diags, c.summary, c.detail)
		}
	}
	_, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(
		"listener \"kept\" {\n  address = \"10.77.0.1\"\n  port = 1\n}\nimport {\n  to = listener.kept\n}\nimport {\n  to = listener.kept\n  id = \"other\"\n}\n")}, VarInputs{})
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "Duplicate import of listener.kept") {
		t.Errorf("two imports of one target: %v", diags)
	}
}

func TestImportIDFromAVariableValidates(t *testing.T) {
	l := NewLoader()
	l.Validate = true
	_, diags := l.LoadSources(map[string][]byte{"main.rdma.hcl": []byte(
		"variable \"old_id\" {\n  type = string\n}\nlistener \"loop\" {\n  address = \"10.77.0.1\"\n  port = 1\n}\nimport {\n  to = listener.loop\n  id = var.old_id\n}\n")}, VarInputs{})
	if diags.HasErrors() {
		t.Errorf("validate: %v", diags)
	}
}

// As Terraform's import blocks, one with for_each imports an instance per
// element: each.key and each.value in to's index and in id, over a map, a
// set of strings or a list.
func TestImportBlocksWithForEach(t *testing.T) {
	cfg := mustLoad(t, map[string]string{"main.rdma.hcl": `
listener "main" {
  address = "10.77.0.1"
  port    = 7471
}
endpoint "byname" {
  for_each = toset(["a", "b"])
  address  = listener.main.address
  port     = listener.main.port
}
endpoint "bycount" {
  count   = 2
  address = listener.main.address
  port    = listener.main.port
}
import {
  for_each = { a = "old-a", b = "old-b" }
  to       = endpoint.byname[each.key]
  id       = each.value
}
import {
  for_each = ["x", "y"]
  to       = endpoint.bycount[each.key]
  id       = "endpoint.client[${each.key}]@${each.value}"
}
`})
	var got []string
	for _, im := range cfg.Imports {
		got = append(got, im.To.String()+" "+im.ID)
	}
	want := `endpoint.byname["a"] old-a,endpoint.byname["b"] old-b,endpoint.bycount[0] endpoint.client[0]@x,endpoint.bycount[1] endpoint.client[1]@y`
	if strings.Join(got, ",") != want {
		t.Errorf("imports:\n%s\nwant\n%s", strings.Join(got, ","), want)
	}

	for _, c := range []struct{ body, summary, detail string }{
		{"for_each = 3\n  to = endpoint.bycount[each.key]", "Invalid for_each argument", "must be a map, a set of strings or a list; got a number."},
		{"for_each = [\"a\"]\n  to = endpoint.bycount", "Invalid import target", "such as endpoint.client[each.key]"},
		{"for_each = [\"a\"]\n  to = endpoint.bycount[each.value]", "Configuration for import target does not exist", `endpoint.bycount["a"] is not one of`},
		{"for_each = [\"a\", \"b\"]\n  to = endpoint.bycount[0]", "Invalid import target", "from each.key or each.value"},
		{"for_each = toset([1])\n  to = endpoint.bycount[each.key]", "Invalid for_each argument", "holds strings; it holds numbers."},
	} {
		_, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(
			"endpoint \"bycount\" {\n  count = 2\n  address = \"10.77.0.1\"\n  port = 1\n}\n" +
				"import {\n  " + c.body + "\n}\n")}, VarInputs{})
		if !diags.HasErrors() || diags[0].Summary != c.summary || !strings.Contains(diags[0].Detail, c.detail) || diags[0].Subject == nil || diags[0].Subject.Start.Line < 7 {
			t.Errorf("import { %s }: got %v, want %q containing %q", c.body, diags, c.summary, c.detail)
		}
	}
}
