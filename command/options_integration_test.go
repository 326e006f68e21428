//go:build integration

package command

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// A plan shows the options; apply makes them; status shows what the QPs
// got, in its table's QP attributes and in -json: the type of service as
// the traffic class, the ACK timeout, and responder resources and
// initiator depth left out as the device's limits (rxe's 128: RDMA READs
// and atomics can flow); a change of an option replaces the endpoint.
func TestOptionsPlannedAppliedAndShown(t *testing.T) {
	addr := os.Getenv("RDMAFORM_TEST_ADDR")
	config := func(tos int) string {
		return fmt.Sprintf(`
listener "l" {
  address = %q
  port    = 7641
  qp {}
  options {
    ack_timeout = 12
  }
}
endpoint "e" {
  address = listener.l.address
  port    = listener.l.port
  qp {}
  options {
    type_of_service = %d
    ack_timeout     = 14
  }
}
`, addr, tos)
	}
	e := newE2E(t, config(106))
	e.expect(0, []string{"+ options {", "+ type_of_service = 106", "+ ack_timeout     = 14", "Plan: 2 to add"}, "plan", "-no-color")
	e.expect(0, []string{"Apply complete! Resources: 2 added, 0 changed, 0 destroyed."}, "apply", "-auto-approve", "-no-color")

	qpLine(t, e.expect(0, []string{"QP attributes (ibv_query_qp):"}, "status"), "endpoint.e ", "responder_resources 128, initiator_depth 128, traffic_class 106, ack_timeout 14")
	_, out, _ := e.rdmaform("status", "-json")
	var status struct {
		Objects []struct {
			Address string
			Facts   struct {
				QpAttrs *struct {
					ResponderResources, InitiatorDepth, TrafficClass, AckTimeout *int
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &status); err != nil {
		t.Fatalf("status -json: %v\n%s", err, out)
	}
	var conns int
	for _, o := range status.Objects {
		a := o.Facts.QpAttrs
		switch {
		case o.Address == "endpoint.e":
			if a == nil || a.ResponderResources == nil || *a.ResponderResources != 128 || *a.InitiatorDepth != 128 || *a.TrafficClass != 106 || *a.AckTimeout != 14 {
				t.Errorf("endpoint.e's qpAttrs in status -json: %+v\n%s", a, out)
			}
		case strings.HasPrefix(o.Address, "listener.l/conn/"):
			conns++
			if a == nil || a.AckTimeout == nil || *a.AckTimeout != 12 || *a.ResponderResources != 128 {
				t.Errorf("%s's qpAttrs in status -json: %+v\n%s", o.Address, a, out)
			}
		}
	}
	if conns != 1 {
		t.Errorf("%d accepted connections in status -json:\n%s", conns, out)
	}

	e.write(config(96))
	e.expect(0, []string{"# endpoint.e must be replaced", "~ type_of_service = 106 -> 96 # forces replacement", "Plan: 1 to add, 0 to change, 1 to destroy."}, "plan", "-no-color")
	e.expect(0, []string{"Apply complete! Resources: 1 added, 0 changed, 1 destroyed."}, "apply", "-auto-approve", "-no-color")
	qpLine(t, e.expect(0, nil, "status"), "endpoint.e ", "responder_resources 128, initiator_depth 128, traffic_class 96, ack_timeout 14")
	e.expect(0, []string{"Destroy complete! Resources: 2 destroyed."}, "destroy", "-auto-approve", "-no-color")
}

// qpLine checks that status's QP attributes list object with want.
func qpLine(t *testing.T, out, object, want string) {
	t.Helper()
	_, section, _ := strings.Cut(out, "QP attributes (ibv_query_qp):")
	for _, line := range strings.Split(section, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line)+" ", object) {
			if !strings.HasSuffix(strings.TrimSpace(line), want) {
				t.Errorf("status lists %q, want %q:\n%s", line, want, out)
			}
			return
		}
	}
	t.Errorf("status lists no QP attributes of %s:\n%s", object, out)
}
