package config

import (
	"regexp"
	"testing"
)

// ctyName matches cty's names of types, which messages must not use.
var ctyName = regexp.MustCompile(`dynamic|tuple|cty\.|of (number|string|bool)\b`)

// An empty for_each switches a block off, whatever the type of its
// (absent) elements: toset([]) is a set of any type. Terraform 1.11 takes
// an empty set, map or object before it looks at the element type, and
// makes no instances; only an empty list unconverted by toset is refused.
func TestEmptyForEachMakesNoInstances(t *testing.T) {
	for _, forEach := range []string{
		`toset([])`,
		`toset(tolist([]))`,
		`toset([for x in [] : x])`,
		`tomap({})`,
		`{}`,
		`{ for k, v in {} : k => v }`,
		`toset([for n in [1, 2] : n if n > 5])`, // a set of numbers, empty
	} {
		t.Run(forEach, func(t *testing.T) {
			cfg := mustLoad(t, map[string]string{"main.rdma.hcl": `
agent "site" {
  for_each = ` + forEach + `
  address  = "10.77.1.${each.key}"` + agentTLS + `
}
listener "l" {
  for_each = ` + forEach + `
  address  = "10.77.0.1"
  port     = 7471
}
endpoint "e" {
  for_each = ` + forEach + `
  address  = "10.77.0.1"
  port     = 7471
}
import {
  for_each = ` + forEach + `
  to       = endpoint.e[each.key]
}
output "agents" {
  value = length(agent.site)
}
`})
			if len(cfg.Instances) != 0 || len(cfg.Agents) != 0 || len(cfg.Imports) != 0 {
				t.Errorf("instances %v, agents %v, imports %v; want none", cfg.Instances, cfg.Agents, cfg.Imports)
			}
		})
	}
}

// A for_each that is not empty still needs strings for its keys, and
// says so in words: "a set of numbers", never cty's "set of number" or
// "set of dynamic".
func TestForEachTypeErrorsInWords(t *testing.T) {
	for _, c := range []struct{ block, forEach, want string }{
		{"endpoint", `toset([1, 2])`, "for_each over a set needs a set of strings; got a set of numbers."},
		{"endpoint", `toset([true])`, "for_each over a set needs a set of strings; got a set of bools."},
		{"endpoint", `toset([[1]])`, "for_each over a set needs a set of strings; got a set of lists of 1 element."},
		{"endpoint", `[1, 2]`, "for_each must be a map or a set of strings; got a list of 2 elements. Use toset() for a list of strings."},
		{"endpoint", `[]`, "for_each must be a map or a set of strings; got an empty list. Use toset() for a list of strings."},
		{"endpoint", `"a"`, "for_each must be a map or a set of strings; got a string. Use toset() for a list of strings."},
		{"agent", `toset([1])`, "for_each over a set needs a set of strings; got a set of numbers."},
		{"import", `toset([1])`, "A set for an import's for_each holds strings; it holds numbers."},
		{"import", `3`, "The import's for_each must be a map, a set of strings or a list; got a number."},
		{"import", `null`, "The import's for_each must be a map, a set of strings or a list, not null."},
	} {
		body := "  address  = \"10.77.0.1\"\n  port     = 7471\n"
		switch c.block {
		case "agent":
			body = "  address  = \"10.77.1.1\"" + agentTLS + "\n"
		case "import":
			body = "  to = endpoint.e[each.key]\n"
		}
		head := c.block + ` "x" {`
		if c.block == "import" {
			head = "import {"
		}
		src := "endpoint \"e\" {\n  for_each = toset([\"a\"])\n  address = \"10.77.0.1\"\n  port = 1\n}\n" +
			head + "\n  for_each = " + c.forEach + "\n" + body + "}\n"
		_, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(src)}, VarInputs{})
		if len(diags) != 1 || diags[0].Summary != "Invalid for_each argument" || diags[0].Detail != c.want {
			t.Errorf("%s with for_each = %s: got %v, want %q", c.block, c.forEach, diags, c.want)
			continue
		}
		if ctyName.MatchString(diags[0].Detail) {
			t.Errorf("%s with for_each = %s names a type as cty does: %s", c.block, c.forEach, diags[0].Detail)
		}
	}
}
