package command

import (
	"strings"
	"testing"
)

// validate warns, as plan does, of more endpoints toward a listener than
// its max_connections admits; the configuration stays valid (exit 0).
// The echoing listener and the probing endpoints need no qp block.
func TestValidateWarnsOfEndpointsOverMaxConnections(t *testing.T) {
	code, out, errs := validateIn(t, map[string]string{"main.rdma.hcl": `listener "l" {
  address = "10.77.0.1"
  port    = 7471
  accept {
    echo            = true
    max_connections = 2
  }
}

endpoint "e" {
  count   = 3
  address = listener.l.address
  port    = listener.l.port
  probe {}
}
`}, "-no-color")
	all := out + errs
	for _, want := range []string{
		"Warning: More endpoints than the listener's max_connections",
		"on main.rdma.hcl:1:1, in listener \"l\":",
		"3 endpoints of this configuration connect to listener.l (10.77.0.1:7471), which accepts at most 2",
		"Success! The configuration is valid, but there were some validation warnings",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("validate lacks %q:\n%s", want, all)
		}
	}
	if code != 0 {
		t.Errorf("exit %d, want 0 (a warning)", code)
	}
}
