//go:build integration

package command

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// for_each keys are any strings, as in Terraform: keys holding "/" (host
// paths such as "rack-12/host-07") name listeners and endpoints the agent
// makes, and status shows them and the listener's accepted connections
// under those addresses.
func TestForEachKeysMayHoldSlashes(t *testing.T) {
	addr := os.Getenv("RDMAFORM_TEST_ADDR")
	e := newE2E(t, fmt.Sprintf(`
locals {
  hosts = { "rack-12/host-07" = 7641, "rack-12/conn/1" = 7642 }
}
listener "svc" {
  for_each = local.hosts
  address  = %q
  port     = each.value
  qp {}
}
endpoint "c" {
  for_each = listener.svc
  address  = each.value.address
  port     = each.value.port
  qp {}
}
`, addr))
	e.expect(0, []string{"Apply complete! Resources: 4 added, 0 changed, 0 destroyed."}, "apply", "-auto-approve", "-no-color")
	_, status, _ := e.rdmaform("status")
	for _, want := range []string{
		`endpoint.c["rack-12/host-07"]`, `endpoint.c["rack-12/conn/1"]`,
		`listener.svc["rack-12/host-07"]/conn/`, `listener.svc["rack-12/conn/1"]/conn/`,
		"6 objects: 4 established, 2 listening",
	} {
		if !strings.Contains(status, want) {
			t.Errorf("status lacks %q:\n%s", want, status)
		}
	}
	e.expect(0, []string{"No changes."}, "plan", "-detailed-exitcode", "-no-color")
	e.expect(0, []string{"Destroy complete! Resources: 4 destroyed."}, "destroy", "-auto-approve", "-no-color")
}
