//go:build integration

package command

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// plan -generate-config-out on the fabric: after the state is lost, import
// blocks alone (no configuration of the objects) get their blocks written
// from what the agent holds; the agent's import check (the spec it holds
// against the one the blocks make) passes, and the next plan has nothing
// to do.
func TestGenerateConfigOutOnTheFabric(t *testing.T) {
	addr := os.Getenv("RDMAFORM_TEST_ADDR")
	src := `
protection_domain "rxe" {
  device = "rxe0"
}

listener "loop" {
  address = "` + addr + `"
  port    = 7481
  backlog = 16
  pd      = protection_domain.rxe.id
  qp {
    max_send_wr = 32
    max_recv_wr = 32
  }
  accept {
    max_connections = 8
    echo            = true
  }
}

endpoint "client" {
  address = listener.loop.address
  port    = listener.loop.port
  pd      = protection_domain.rxe.id
  qp {
    max_send_wr = 32
    max_recv_wr = 32
  }
  connect {
    private_data = "client-0"
    timeout      = "500ms"
  }
  reconnect {
    min_backoff = "100ms"
    max_backoff = "5s"
  }
  probe {
    interval = "1s"
    size     = 64
  }
}
`
	e := newE2E(t, src)
	e.expect(0, []string{"Apply complete! Resources: 3 added"}, "apply", "-auto-approve", "-no-color")
	for _, f := range []string{"rdmaform.rdmastate", "rdmaform.rdmastate.backup"} {
		os.Remove(filepath.Join(e.dir, f))
	}
	e.write("import {\n  to = protection_domain.rxe\n}\nimport {\n  to = listener.loop\n}\nimport {\n  to = endpoint.client\n}\n")
	e.expect(0, []string{"written it to generated.rdma.hcl", "Plan: 3 to import, 0 to add, 0 to change, 0 to destroy."}, "plan", "-no-color", "-generate-config-out=generated.rdma.hcl")
	generated, err := os.ReadFile(filepath.Join(e.dir, "generated.rdma.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("generated.rdma.hcl:\n%s", generated)
	for _, want := range []string{`# __generated__ by rdmaform from "listener.loop"`, `listener "loop" {`, `private_data = "client-0"`, `echo            = true`} {
		if !strings.Contains(string(generated), want) {
			t.Errorf("generated.rdma.hcl lacks %q", want)
		}
	}
	e.expect(0, []string{"Success! The configuration is valid."}, "validate", "-no-color")
	e.expect(0, []string{"Apply complete! Resources: 3 imported, 0 added, 0 changed, 0 destroyed."}, "apply", "-auto-approve", "-no-color")
	e.expect(0, []string{"No changes. Your fabric matches the configuration."}, "plan", "-no-color", "-detailed-exitcode")
	e.expect(1, []string{"Target generated file already exists"}, "plan", "-no-color", "-generate-config-out=generated.rdma.hcl")
	e.expect(0, []string{"Destroy complete! Resources: 3 destroyed."}, "destroy", "-auto-approve", "-no-color")
}
