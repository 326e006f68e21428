package config

import (
	"strings"
	"testing"

	"github.com/rdmaform/rdmaform/config/addrs"
)

func TestPreconditions(t *testing.T) {
	src := func(cond string) map[string][]byte {
		return map[string][]byte{"main.rdma.hcl": []byte(`
variable "port" {
  default = 80
}
listener "l" {
  address = "10.77.0.1"
  port    = 7471
}
endpoint "e" {
  count   = 2
  address = listener.l.address
  port    = listener.l.port

  lifecycle {
    precondition {
      condition     = ` + cond + `
      error_message = "The port must be above 1024, not ${var.port}."
    }
  }
}
`)}
	}
	if _, diags := NewLoader().LoadSources(src("listener.l.port > 1024 && count.index < 2"), VarInputs{}); diags.HasErrors() {
		t.Fatalf("a true precondition: %v", diags)
	}
	_, diags := NewLoader().LoadSources(src("var.port > 1024"), VarInputs{})
	if len(diags) != 1 || diags[0].Summary != "Resource precondition failed" || diags[0].Detail != "The port must be above 1024, not 80." || diags[0].Subject.Start.Line != 16 {
		t.Fatalf("a false precondition (reported once for the two instances): %v", diags)
	}
	cfg, diags := NewLoader().LoadSources(src("listener.l.id != \"\" || count.index == 0"), VarInputs{})
	e1 := addrs.Resource{Kind: addrs.Endpoint, Name: "e"}.Instance(addrs.IntKey(1))
	if diags.HasErrors() || !cfg.Instances[e1].PreconditionsAfterApply {
		t.Fatalf("a precondition known only after apply: %v %+v", diags, cfg.Instances[e1])
	}
	for cond, want := range map[string]string{
		`"maybe"`:            "Invalid condition result",
		"null":               "Invalid condition result",
		"self.port > 1":      "self is the object a postcondition checks",
		"listener.none.port": "not declared",
	} {
		_, diags := NewLoader().LoadSources(src(cond), VarInputs{})
		if !diags.HasErrors() || !strings.Contains(diags[0].Summary+": "+diags[0].Detail, want) {
			t.Errorf("condition = %s: %v, want %q", cond, diags, want)
		}
		if len(diags) != 1 {
			t.Errorf("condition = %s: %d errors for one mistake: %v", cond, len(diags), diags)
		}
	}
}

func TestPostconditionReferences(t *testing.T) {
	_, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(`
listener "l" {
  address = "10.77.0.1"
  port    = 7471
  lifecycle {
    postcondition {
      condition     = self.stauts == "listening" && self.port == 7471
      error_message = "not listening"
    }
  }
}
`)}, VarInputs{})
	if len(diags) != 1 || diags[0].Summary != "Unsupported attribute" || !strings.Contains(diags[0].Detail, `Did you mean "status"?`) || diags[0].Subject.Start.Line != 7 {
		t.Fatalf("self.stauts: %v", diags)
	}
}

func TestCheckBlockErrors(t *testing.T) {
	for body, want := range map[string]string{
		`check "c" {}`: "Missing assert block",
		`check "c" {
  assert {
    condition     = listener.none.port > 0
    error_message = "x"
  }
}`: "not declared",
		`check "c" {
  assert {
    condition     = self.port > 0
    error_message = "x"
  }
}`: "self is only available in a postcondition",
		`check "c" {
  assert {
    condition     = true
    error_message = "x"
  }
}
check "c" {
  assert {
    condition     = true
    error_message = "y"
  }
}`: `Duplicate check "c"`,
	} {
		_, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(body)}, VarInputs{})
		if !diags.HasErrors() || !strings.Contains(diags[0].Summary+": "+diags[0].Detail, want) {
			t.Errorf("%s: %v, want %q", body, diags, want)
		}
	}
}

// An output's preconditions are checked with what is known when loading;
// one that needs values known only after apply waits.
func TestOutputPreconditions(t *testing.T) {
	src := `
variable "port" {
  default = 80
}
listener "l" {
  address = "10.77.0.1"
  port    = 7471
}
output "port" {
  value = var.port
  precondition {
    condition     = var.port > 1024
    error_message = "The port ${var.port} is privileged."
  }
}
output "id" {
  value = listener.l.id
  precondition {
    condition     = listener.l.id != ""
    error_message = "No id."
  }
}
`
	_, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(src)}, VarInputs{})
	if len(diags) != 1 || diags[0].Summary != "Output value precondition failed" || diags[0].Detail != `output "port": The port 80 is privileged.` || diags[0].Subject.Start.Line != 12 {
		t.Fatalf("got %v", diags)
	}
	if _, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(src)}, VarInputs{Args: []VarArg{{Value: "port=8080"}}}); diags.HasErrors() {
		t.Errorf("a port over 1024: %v", diags)
	}
}
