//go:build integration

package command

import (
	"os"
	"strings"
	"testing"
)

// RoCEv2 over IPv6: a listener and endpoints on the testbed's IPv6
// address are planned, made, probed and destroyed as over IPv4, and every
// address with its port reads bracketed.
func TestIPv6EndToEnd(t *testing.T) {
	addr := os.Getenv("RDMAFORM_TEST_ADDR6")
	if addr == "" {
		t.Fatal("RDMAFORM_TEST_ADDR6 is not set: run the integration tests in the Soft-RoCE testbed (scripts/vm-run)")
	}
	e := newE2E(t, `
listener "v6" {
  address = "`+addr+`"
  port    = 7491
  qp {}
  accept {
    echo = true
  }
}

endpoint "c" {
  count   = 2
  address = listener.v6.address
  port    = listener.v6.port
  qp {}
  probe {
    interval = "50ms"
  }
}

output "where" {
  value = [for c in endpoint.c : c.local_address]
}
`)
	e.expect(0, []string{"Apply complete! Resources: 3 added, 0 changed, 0 destroyed."}, "apply", "-auto-approve", "-no-color")
	if n := cmIDs(t, "7491"); n < 5 {
		t.Fatalf("kernel shows %d cm_ids on port 7491, want at least 5 (listener, 2 endpoints, 2 accepted)", n)
	}
	out := e.expect(0, []string{"[" + addr + "]:7491", "established"}, "status", "-no-color")
	if strings.Contains(out, addr+":7491") && !strings.Contains(out, "["+addr+"]:7491") {
		t.Fatalf("status runs the IPv6 address and port together:\n%s", out)
	}
	e.expect(0, []string{"No changes."}, "plan", "-no-color", "-detailed-exitcode")
	e.expect(0, []string{`"` + addr + `"`}, "output", "-no-color", "where")
	e.expect(0, []string{"Destroy complete! Resources: 3 destroyed."}, "destroy", "-auto-approve", "-no-color")
	if n := cmIDs(t, "7491"); n != 0 {
		t.Fatalf("kernel shows %d cm_ids on port 7491 after destroy", n)
	}
}
