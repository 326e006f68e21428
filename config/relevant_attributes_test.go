package config

import (
	"encoding/json"
	"testing"

	"github.com/rdmaform/rdmaform/config/addrs"
)

// relevant_attributes, as Terraform's: what the changing blocks and
// outputs reference (through locals, and the blocks they reference in
// turn), and the checks; a whole block where a splat or for takes it.
func TestRelevantAttributes(t *testing.T) {
	cfg := mustLoad(t, map[string]string{"main.rdma.hcl": `
protection_domain "rxe" {
  device = "rxe0"
}
listener "l" {
  address = "10.77.0.1"
  port    = 7471
  pd      = protection_domain.rxe.id
}
endpoint "e" {
  count   = 2
  address = listener.l.address
  port    = local.port
}
locals {
  port = listener.l.port
}
output "qps" {
  value = [for e in endpoint.e : e.qp_num]
}
output "first" {
  value = endpoint.e[0].status
}
check "up" {
  assert {
    condition     = listener.l.status == "established"
    error_message = "down"
  }
}
`})
	got := func(blocks []addrs.Resource, outputs ...string) string {
		b, _ := json.Marshal(cfg.RelevantAttributes(blocks, outputs))
		return string(b)
	}
	if g, want := got(nil), `[{"resource":"listener.l","attribute":["status"]},{"resource":"protection_domain.rxe","attribute":["id"]}]`; g != want {
		t.Errorf("nothing changing:\n got %s\nwant %s", g, want)
	}
	e := []addrs.Resource{{Kind: "endpoint", Name: "e"}}
	want := `[{"resource":"endpoint.e","attribute":[]},{"resource":"endpoint.e[0]","attribute":["status"]},` +
		`{"resource":"listener.l","attribute":["address"]},{"resource":"listener.l","attribute":["port"]},{"resource":"listener.l","attribute":["status"]},` +
		`{"resource":"protection_domain.rxe","attribute":["id"]}]`
	if g := got(e, "qps", "first"); g != want {
		t.Errorf("endpoint.e and its outputs changing:\n got %s\nwant %s", g, want)
	}
}
