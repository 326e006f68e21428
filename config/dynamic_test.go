package config

import (
	"strings"
	"testing"
	"time"
)

const dynamicConfig = `
variable "probes" {
  type    = map(object({ interval = string, size = number }))
  default = {
    a = { interval = "250ms", size = 128 }
  }
}
variable "reconnect" {
  type    = bool
  default = false
}
listener "l" {
  address = "10.77.0.1"
  port    = 7471
  qp {}
  dynamic "accept" {
    for_each = [true]
    iterator = echo
    content {
      echo = echo.value
    }
  }
}
endpoint "e" {
  for_each = toset(["a", "b"])
  address  = listener.l.address
  port     = listener.l.port
  qp {}
  dynamic "probe" {
    for_each = contains(keys(var.probes), each.key) ? [var.probes[each.key]] : []
    content {
      interval = probe.value.interval
      size     = probe.value.size
    }
  }
  dynamic "reconnect" {
    for_each = var.reconnect ? ["x"] : []
    content {}
  }
  dynamic "connect" {
    for_each = {}
    content {
      retry_count = 1
    }
  }
}
`

func TestDynamicBlocksMakeOptionalBlocks(t *testing.T) {
	cfg := mustLoad(t, map[string]string{"main.rdma.hcl": dynamicConfig})
	if !instance(t, cfg, "listener.l").Listener.Accept.Echo {
		t.Error("listener.l: echo not set from the dynamic accept block's iterator")
	}
	a := instance(t, cfg, `endpoint.e["a"]`).Endpoint
	if a.Probe == nil || a.Probe.Interval != 250*time.Millisecond || a.Probe.Size != 128 {
		t.Errorf(`endpoint.e["a"]: probe %+v, want 250ms and 128 bytes from the dynamic block`, a.Probe)
	}
	b := instance(t, cfg, `endpoint.e["b"]`).Endpoint
	if b.Probe != nil {
		t.Errorf(`endpoint.e["b"]: probe %+v, want none (for_each is empty)`, b.Probe)
	}
	if a.Reconnect != nil || b.Reconnect != nil {
		t.Error("reconnect present although its for_each is empty")
	}
	// An omitted connect block (for_each = {}) still means its defaults.
	if a.Connect.RetryCount != DefaultRetryCount {
		t.Errorf("connect.retry_count = %d, want the default %d", a.Connect.RetryCount, DefaultRetryCount)
	}
	cfg, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(dynamicConfig)}, VarInputs{Args: VarArgs{{Value: "reconnect=true"}}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if instance(t, cfg, `endpoint.e["b"]`).Endpoint.Reconnect == nil {
		t.Error("reconnect = true: no reconnect block generated")
	}
}

func TestDynamicBlockInJSON(t *testing.T) {
	cfg, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.json": []byte(`{
  "endpoint": {"e": {"address": "10.77.0.1", "port": 7471, "qp": {},
    "dynamic": {"probe": {"for_each": "${[\"1s\"]}", "content": {"interval": "${probe.value}"}}}}}
}`)}, VarInputs{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if p := instance(t, cfg, "endpoint.e").Endpoint.Probe; p == nil || p.Interval != time.Second {
		t.Errorf("probe from a JSON dynamic block: %+v", p)
	}
}

func TestDynamicBlockErrors(t *testing.T) {
	for _, c := range []struct{ block, summary, detail string }{
		{`dynamic "prob" {
    for_each = [1]
    content {}
  }`, "Unsupported block type", `Did you mean "probe"?`},
		{`dynamic "probe" {
    for_each = [1, 2]
    content {}
  }`, "Invalid dynamic for_each value", "at most once, and for_each has 2 elements"},
		{`dynamic "probe" {
    for_each = "1s"
    content {}
  }`, "Invalid dynamic for_each value", "Cannot use a string in for_each"},
		{`dynamic "probe" {
    for_each = null
    content {}
  }`, "Invalid dynamic for_each value", "null value"},
		{`dynamic "probe" {
    for_each = [1]
  }`, "Missing content block", `A dynamic "probe" block needs a content block`},
		{`dynamic "probe" {
    for_each = [1]
    iterator = var
    content {}
  }`, "Invalid dynamic iterator name", "single name"},
		{`probe {}
  dynamic "probe" {
    for_each = [1]
    content {}
  }`, "Duplicate probe block", ""},
		{`dynamic "probe" {
    for_each = [1]
    content {
      interval = probe.value.nope
    }
  }`, "Unsupported attribute", ""},
		{`dynamic "probe" {
    for_each = [1]
    content {
      size = var.missing
    }
  }`, "Reference to undeclared input variable", ""},
	} {
		_, diags := NewLoader().LoadSources(map[string][]byte{"main.rdma.hcl": []byte(`
endpoint "e" {
  address = "10.77.0.1"
  port    = 7471
  qp {}
  ` + c.block + `
}
`)}, VarInputs{})
		if !diags.HasErrors() {
			t.Errorf("%s: no error", c.block)
			continue
		}
		d := diags[0]
		if d.Summary != c.summary || !strings.Contains(d.Detail, c.detail) || d.Subject == nil || d.Subject.Start.Line < 6 {
			t.Errorf("%s:\n got %q: %q at %v\nwant %q containing %q at line 6 or after", c.block, d.Summary, d.Detail, d.Subject, c.summary, c.detail)
		}
	}
}

// A dynamic block's for_each from a variable without a value: validate
// passes it (the block is unknown), as Terraform's; a plan reports the
// variable alone, not an unknown for_each besides.
func TestDynamicForEachOfAVariableWithoutValue(t *testing.T) {
	dir := writeDir(t, map[string]string{"main.rdma.hcl": `
variable "intervals" { type = list(string) }
listener "l" {
  address = "10.77.0.1"
  port    = 7471
  qp {}
  accept { echo = true }
}
endpoint "e" {
  address = listener.l.address
  port    = listener.l.port
  qp {}
  dynamic "probe" {
    for_each = var.intervals
    content {
      interval = probe.value
    }
  }
}
`})
	l := NewLoader()
	l.Validate = true
	if _, diags := l.Load(dir, VarInputs{}); len(diags) != 0 {
		t.Errorf("validate: %v", diags)
	}
	if _, diags := Load(dir, VarInputs{}); len(diags) != 1 || diags[0].Summary != "No value for required variable" {
		t.Errorf("plan: %v", diags)
	}
}
