//go:build integration

package command

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// Private data that is not UTF-8, a ULP's binary header with bytes of
// 0x80 and above, given in the base64 forms arrives exactly on the fabric:
// the listener's accepted connection shows what the endpoint's connect
// sent, the endpoint what the listener's accept sent, and an endpoint
// over max_connections is refused with the reject's bytes (which the
// agent's API, whose strings must be UTF-8, carries in hexadecimal).
func TestBinaryPrivateDataOnTheFabric(t *testing.T) {
	addr, port := os.Getenv("RDMAFORM_TEST_ADDR"), "7632"
	// A zero inside each, not at the end: IB CM messages pad private data
	// with zeros, which the agent trims.
	connectData := []byte{0x80, 0x01, 0xfe, 0xff, 0x00, 0x61, 0x62}
	acceptData := []byte{0xde, 0xad, 0xbe, 0xef, 0x00, 0x80, 0x81}
	config := func(connect string, over bool) string {
		s := fmt.Sprintf(`
listener "l" {
  address = %q
  port    = %s
  qp {}
  accept {
    private_data_base64        = "3q2+7wCAgQ=="
    reject_private_data_base64 = "gP8B"
    max_connections            = 1
  }
}
endpoint "e" {
  address = listener.l.address
  port    = listener.l.port
  qp {}
  connect {
    private_data_base64 = %q
  }
}
`, addr, port, connect)
		if over {
			s += `
endpoint "over" {
  address = listener.l.address
  port    = listener.l.port
  qp {}
  depends_on = [endpoint.e]
}
`
		}
		return s
	}
	e := newE2E(t, config("gAH+/wBhYg==", false))
	e.expect(0, []string{`+ private_data_base64        = "3q2+7wCAgQ=="`, `+ private_data_base64 = "gAH+/wBhYg=="`, "Plan: 2 to add"}, "plan", "-no-color")
	e.expect(0, []string{"Apply complete! Resources: 2 added, 0 changed, 0 destroyed."}, "apply", "-auto-approve", "-no-color")

	_, out, _ := e.rdmaform("status", "-json")
	var status struct {
		Objects []struct {
			Address             string
			ReceivedPrivateData []byte // base64 in protobuf's JSON, as encoding/json reads []byte
		}
	}
	if err := json.Unmarshal([]byte(out), &status); err != nil {
		t.Fatalf("status -json: %v\n%s", err, out)
	}
	var conns int
	for _, o := range status.Objects {
		switch {
		case o.Address == "endpoint.e":
			if !bytes.Equal(o.ReceivedPrivateData, acceptData) {
				t.Errorf("endpoint.e received % x from the listener, want % x", o.ReceivedPrivateData, acceptData)
			}
		case strings.HasPrefix(o.Address, "listener.l/conn/"):
			conns++
			if !bytes.Equal(o.ReceivedPrivateData, connectData) {
				t.Errorf("%s received % x from the endpoint, want % x", o.Address, o.ReceivedPrivateData, connectData)
			}
		}
	}
	if conns != 1 {
		t.Errorf("%d accepted connections in status -json, want 1:\n%s", conns, out)
	}
	e.expect(0, []string{"Private data received:", "endpoint.e", "hex deadbeef008081", "hex 8001feff006162"}, "status", "-no-color")
	e.expect(0, []string{"No changes."}, "plan", "-detailed-exitcode", "-no-color")

	// Another bytes value is another connect: it forces replacement.
	e.write(config("gAH+/wBhYw==", false))
	e.expect(2, []string{"# endpoint.e must be replaced", `~ private_data_base64 = "gAH+/wBhYg==" -> "gAH+/wBhYw==" # forces replacement`, "Plan: 1 to add, 0 to change, 1 to destroy."},
		"plan", "-detailed-exitcode", "-no-color")

	// A second endpoint is over max_connections: the reject carries the
	// listener's reject_private_data_base64 bytes, 80 ff 01.
	e.write(config("gAH+/wBhYg==", true))
	e.expect(1, []string{"endpoint.over: create failed", "hex 80ff01"}, "apply", "-auto-approve", "-no-color")
	e.write(config("gAH+/wBhYg==", false))
	e.expect(0, []string{"Destroy complete!"}, "destroy", "-auto-approve", "-no-color")
}
